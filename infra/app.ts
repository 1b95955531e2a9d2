import { App } from 'aws-cdk-lib';
import { applyNagChecks } from './nag.ts';
import { MarketplaceStack } from './stack.ts';
import { allowedOrigins } from '../lib/http/cors.ts';

const app = new App();
const stack = new MarketplaceStack(app, 'TemplateMarketplace', {
  stage: String(app.node.tryGetContext('stage') ?? 'prod'),
  // Never true for a public stage: it lets webhooks point at http://localhost.
  developmentMode: String(app.node.tryGetContext('developmentMode')) === 'true',
  // Per stage: `cdk deploy -c corsOrigins=https://app.example.com,https://admin.example.com`; default `*`.
  corsOrigins: allowedOrigins({ CORS_ALLOWED_ORIGINS: app.node.tryGetContext('corsOrigins') }),
});
applyNagChecks(app, stack);
