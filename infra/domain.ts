/**
 * With a custom domain the API is served at the domain's root (base path mapping ''), so URLs
 * carry no stage; the DNS record (a CNAME or alias to the output's target) is left to whoever
 * owns the zone.
 */

import { CfnOutput } from 'aws-cdk-lib';
import { BasePathMapping, DomainName, EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import type { StageConfig } from './stage-config.ts';

export function addCustomDomain(scope: Construct, api: RestApi, config: StageConfig): void {
  if (!config.domain) return;
  const domain = new DomainName(scope, 'ApiDomain', {
    domainName: config.domain.name,
    certificate: Certificate.fromCertificateArn(scope, 'ApiCertificate', config.domain.certificateArn),
    endpointType: EndpointType.REGIONAL,
    securityPolicy: SecurityPolicy.TLS_1_2,
  });
  new BasePathMapping(scope, 'ApiRootMapping', { domainName: domain, restApi: api, stage: api.deploymentStage });
  new CfnOutput(scope, 'ApiDomainTarget', {
    value: domain.domainNameAliasDomainName,
    description: `Point ${config.domain.name} here (CNAME or alias).`,
  });
}
