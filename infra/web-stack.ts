/**
 * The catalog and portal pages (issue 25) as a nested stack of the API stack: a private S3
 * bucket, a CloudFront distribution that reads it through origin access control and adds the
 * pages' Content-Security-Policy (web/build.ts) to every answer, and the deployment of the built
 * files plus `/web-config.json`, which names the API for the pages. Its own nested stack, so its
 * dozen resources (the bucket deployment brings a function, a role, a policy and a layer) count
 * against neither an area's budget nor the API stack's (docs/deployment.md).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Duration, NestedStack, RemovalPolicy, Stage } from 'aws-cdk-lib';
import {
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { buildWebAssets, type WebAsset, webContentSecurityPolicy } from '../web/build.ts';

export interface WebStackProps {
  /** The API's origin (`https://<host>`), the one place the pages may call besides themselves. */
  apiOrigin: string;
  /** The API's base URL as the client takes it (origin and stage path). */
  apiUrl: string;
}

/** This process's build of the pages (their esbuild runs once, however many synths: the infra tests make a dozen). */
let built: Map<string, WebAsset> | undefined;

/**
 * The built pages in a folder of the synth's assembly, for the bucket deployment's asset (its hash
 * is the files'): it goes with the assembly (`cdk.out`, or the test synth's, removed once read),
 * where a temporary folder of its own outlived every test worker.
 */
function writeWebAssets(scope: Construct): string {
  built ??= buildWebAssets();
  const folder = join(Stage.of(scope)!.outdir, 'web-pages');
  rmSync(folder, { recursive: true, force: true });
  for (const [path, asset] of built) {
    const file = join(folder, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, asset.body);
  }
  return folder;
}

export class WebStack extends NestedStack {
  /** `https://<distribution domain>`: the catalog is at `/catalog/`, the portal (PORTAL_URL of the functions) at `/portal/`. */
  readonly siteUrl: string;

  constructor(scope: Construct, id: string, props: WebStackProps) {
    super(scope, id, { description: 'The catalog and portal pages: S3 and CloudFront' });
    const bucket = new Bucket(this, 'Pages', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Built files only, redeployed by every `cdk deploy`: nothing to keep.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    const headers = new ResponseHeadersPolicy(this, 'PageHeaders', {
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: webContentSecurityPolicy(props.apiOrigin), override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        // No X-Frame-Options: platforms embed the portal (the CSP's frame-ancestors says so).
      },
    });
    // S3 has no index documents behind origin access control: `/portal/` is `/portal/index.html`,
    // and `/portal` goes to `/portal/` so the page's relative app.js and style.css resolve.
    const indexes = new CloudFrontFunction(this, 'Indexes', {
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var uri = event.request.uri;',
          "  if (uri.endsWith('/')) { event.request.uri = uri + 'index.html'; return event.request; }",
          "  if (uri.lastIndexOf('.') < uri.lastIndexOf('/')) return { statusCode: 301, statusDescription: 'Moved', headers: { location: { value: uri + '/' } } };",
          '  return event.request;',
          '}',
        ].join('\n'),
      ),
    });
    const distribution = new Distribution(this, 'Site', {
      comment: 'Template marketplace pages',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: indexes, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
    });
    new BucketDeployment(this, 'Files', {
      destinationBucket: bucket,
      sources: [Source.asset(writeWebAssets(this)), Source.jsonData('web-config.json', { api: props.apiUrl })],
      distribution,
      memoryLimit: 256,
    });
    this.siteUrl = `https://${distribution.distributionDomainName}`;
  }
}
