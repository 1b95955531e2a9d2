import { App } from 'aws-cdk-lib';
import { applyNagChecks } from './nag.ts';
import { MarketplaceStack } from './stack.ts';

const app = new App();
const stack = new MarketplaceStack(app, 'TemplateMarketplace', {
  stage: String(app.node.tryGetContext('stage') ?? 'prod'),
  // Never true for a public stage: it lets webhooks point at http://localhost.
  developmentMode: String(app.node.tryGetContext('developmentMode')) === 'true',
});
applyNagChecks(app, stack);
