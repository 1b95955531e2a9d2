import { App } from 'aws-cdk-lib';
import { writeOpenApiDocument } from '../local/openapi-document.ts';
import { applyNagChecks } from './nag.ts';
import { defineStacks } from './stacks.ts';
import { DEFAULT_STAGE, stageConfig, stageNameOf } from './stage-config.ts';

// GET /openapi.json bundles the document as data: a build artifact (not committed), written from
// the route table before any bundle or asset hash reads it.
await writeOpenApiDocument();
const app = new App();
const context = (key: string) => app.node.tryGetContext(key);
if (stageNameOf(context) === DEFAULT_STAGE && context('stage') === undefined)
  process.stderr.write(`No -c stage=… given: the ${DEFAULT_STAGE} stage (prod only with -c stage=prod).\n`);
const config = stageConfig(stageNameOf(context), context);
applyNagChecks(app, defineStacks(app, config));
