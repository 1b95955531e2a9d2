import { App } from 'aws-cdk-lib';
import { applyNagChecks } from './nag.ts';
import { defineStacks } from './stacks.ts';
import { stageConfig } from './stage-config.ts';

const app = new App();
const config = stageConfig(String(app.node.tryGetContext('stage') ?? 'prod'), (key) => app.node.tryGetContext(key));
applyNagChecks(app, defineStacks(app, config));
