import { App } from 'aws-cdk-lib';
import { writeOpenApiDocument } from '../local/openapi-document.ts';
import { applyNagChecks } from './nag.ts';
import { defineStacks } from './stacks.ts';
import { stageConfig } from './stage-config.ts';

// GET /openapi.json bundles the document as data: a build artifact (not committed), written from
// the route table before any bundle or asset hash reads it.
await writeOpenApiDocument();
const app = new App();
const config = stageConfig(String(app.node.tryGetContext('stage') ?? 'prod'), (key) => app.node.tryGetContext(key));
applyNagChecks(app, defineStacks(app, config));
