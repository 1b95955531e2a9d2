/**
 * Synthesizes the app as `cdk synth` does, without bundling the functions (the templates are the
 * same, asset hashes included: infra/bundle.ts hashes each function's inputs before any bundle), for the infra tests and `npm run stack-sizes`. `routes` replaces
 * the route table (the growth tests add generated routes); `nag` turns the cdk-nag checks on, as
 * `npm run synth` has them; `validate` keeps CDK's built-in CloudFormation validation (slow).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Route } from '../lib/routes.ts';
import { CDK_JSON } from './cdk-json.ts';
import { applyNagChecks } from './nag.ts';
import { type StackUsage, stackUsage, type TemplateJson } from './stack-limits.ts';
import { defineStacks, type MarketplaceStacks } from './stacks.ts';
import { stageConfig } from './stage-config.ts';

export interface SynthOptions {
  stage?: string;
  /** CDK context, as `-c key=value` gives it (alarmEmail, domainName, certificateArn, account, region, corsOrigins). */
  context?: Record<string, string>;
  routes?: readonly Route[];
  nag?: boolean;
  validate?: boolean;
  /** Pin account and region (the default, as a deploy would); `false` leaves the stacks environment-agnostic. */
  env?: false;
  /** Adds constructs before the synth (a test that the checks do fail). */
  extend?: (stacks: MarketplaceStacks) => void;
}

export type Resource = {
  Type: string;
  Properties: Record<string, TemplateJson>;
  DependsOn?: string[];
  DeletionPolicy?: string;
};

export interface Synthesized {
  app: App;
  stacks: MarketplaceStacks;
  /** Every stack's and nested stack's use of CloudFormation's limits, with its template. */
  usage: StackUsage[];
  /** Every resource of every template, with the stack it is in. */
  resources: Array<{ stack: string; id: string } & Resource>;
  /** Every output of every template. */
  outputs: Array<{ stack: string; id: string; Value: unknown; Description?: string; Export?: { Name: string } }>;
}

export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

export function synthApp(options: SynthOptions = {}): Synthesized {
  const context = options.context ?? {};
  // The assembly is read once, below, and then removed: each synth's would hold 25 MB (the bucket
  // deployment's AWS CLI layer alone is 21 MB), left behind by every run of the tests. Assets are
  // not staged (copied into it) at all; their hashes, and so the templates, are the same.
  const outdir = mkdtempSync(join(tmpdir(), 'test-synth-'));
  const app = new App({
    outdir,
    context: {
      ...CDK_JSON.context,
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:disable-asset-staging': true,
      ...context,
    },
    builtinCloudFormationValidation: options.validate ?? false,
    // Neither is in a template: a stack trace per construct and the tree file cost 15–25 % of a
    // test synth's CPU, and the templates (and their sizes) are byte for byte the same without them.
    stackTraces: false,
    treeMetadata: false,
  });
  const config = stageConfig(options.stage ?? 'prod', (key) => context[key]);
  const stacks = defineStacks(app, config, {
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.env === false ? {} : { env: TEST_ENV }),
  });
  options.extend?.(stacks);
  if (options.nag) applyNagChecks(app, stacks);
  let usage: StackUsage[];
  try {
    usage = stackUsage(app, app.synth().directory);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
  return {
    app,
    stacks,
    usage,
    resources: usage.flatMap((u) =>
      Object.entries(u.template.Resources).map(([id, r]) => ({ stack: u.stack, id, ...(r as Resource) })),
    ),
    outputs: usage.flatMap((u) =>
      Object.entries(u.template.Outputs ?? {}).map(([id, o]) => ({ stack: u.stack, id, ...o })),
    ),
  };
}

/** How many generated routes the growth test and docs/deployment.md's table add. */
export const EXTRA_ROUTES = 100;

/** `count` routes on new paths under one area's prefix (each adds a resource and its preflight: the costliest kind of route). */
export function generatedRoutes(count: number, under = '/v1/marketplace/generated'): Route[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `generated${i}`,
    method: 'GET',
    path: `${under}/r${i}`,
    // Any handler file will do: the functions are not bundled.
    handler: 'functions/health.ts',
    auth: true,
    access: 'read',
  }));
}

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** The statements of every policy attached to the role a function runs with (its grant class's role). */
export function statementsOf(synth: Synthesized, functionLogicalIdPrefix: string): Statement[] {
  const fn = synth.app.node
    .findAll()
    .find((c): c is LambdaFunction => c instanceof LambdaFunction && c.node.id === functionLogicalIdPrefix);
  if (!fn) throw new Error(`No function ${functionLogicalIdPrefix}`);
  const role = fn.role!;
  const roleStack = Stack.of(role);
  const roleId = roleStack.getLogicalId(role.node.defaultChild as CfnElement);
  // Named as stackUsage names them: a nested stack (the push channel's roles) by its parent and id.
  const stackName = roleStack.nested
    ? `${roleStack.nestedStackParent!.stackName}/${roleStack.node.id}`
    : roleStack.stackName;
  return synth.resources
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.stack === stackName)
    .filter((r) => (r.Properties['Roles'] as Array<{ Ref: string }>).some((ref) => ref.Ref === roleId))
    .flatMap((r) => r.Properties['PolicyDocument'].Statement as Statement[]);
}

export const actionsIn = (statements: Statement[]): string[] =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
