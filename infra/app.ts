import { App, Tags } from 'aws-cdk-lib';
import { applyNagChecks } from './nag.ts';
import { MarketplaceStack } from './stack.ts';
import { stackIdOf, stageConfig } from './stage-config.ts';

const app = new App();
const config = stageConfig(String(app.node.tryGetContext('stage') ?? 'prod'), (key) => app.node.tryGetContext(key));
const stack = new MarketplaceStack(app, stackIdOf(config.name), {
  config,
  env: {
    account: config.account ?? process.env['CDK_DEFAULT_ACCOUNT'],
    region: config.region ?? process.env['CDK_DEFAULT_REGION'],
  },
  terminationProtection: config.terminationProtection,
  description: `Template marketplace, contracts and webhook delivery (${config.name})`,
});
Tags.of(stack).add('app', 'template-marketplace');
Tags.of(stack).add('stage', config.name);
applyNagChecks(app, stack);
