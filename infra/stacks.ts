/**
 * The app's stacks for one stage (docs/deployment.md): the stateful stack, the API and workers
 * stacks that read it, and the monitoring stack that watches them all. `cdk deploy --all` deploys
 * them in that order (CloudFormation exports make the dependencies). `routes` defaults to the one
 * route table; the growth tests pass a longer one.
 */
import { type App, CrossStackReferences, type Environment, ReferenceStrength, type Stack, Tags } from 'aws-cdk-lib';
import { type Route, routes as routeTable } from '../lib/routes.ts';
import { ApiStack } from './api-stack.ts';
import { MonitoringStack } from './monitoring.ts';
import { type StageConfig, stackIdOf } from './stage-config.ts';
import { StateStack } from './state-stack.ts';
import { WorkersStack } from './workers-stack.ts';

export interface MarketplaceStacks {
  config: StageConfig;
  state: StateStack;
  api: ApiStack;
  workers: WorkersStack;
  monitoring: MonitoringStack;
  /** The four, in deploy order. */
  all: Stack[];
}

export function defineStacks(
  app: App,
  config: StageConfig,
  options: { routes?: readonly Route[]; env?: Environment } = {},
): MarketplaceStacks {
  // Strong references (exports and imports): CloudFormation refuses to remove the table, a queue or
  // the topic while a stateless stack still uses it (docs/deployment.md, "What a rollback touches").
  CrossStackReferences.of(app).consume(ReferenceStrength.STRONG);
  const routes = options.routes ?? routeTable;
  const env = options.env ?? {
    account: config.account ?? process.env['CDK_DEFAULT_ACCOUNT'],
    region: config.region ?? process.env['CDK_DEFAULT_REGION'],
  };
  const id = stackIdOf(config.name);
  const about = (part: string) => `Template marketplace, contracts and webhook delivery (${config.name}): ${part}`;
  const state = new StateStack(app, id, {
    config,
    env,
    terminationProtection: config.terminationProtection,
    description: about('table, queues, alarm topic'),
  });
  const api = new ApiStack(app, `${id}-Api`, {
    config,
    env,
    state,
    routes,
    description: about('REST API and route functions'),
  });
  const workers = new WorkersStack(app, `${id}-Workers`, {
    config,
    env,
    state,
    description: about('stream, queue and schedule workers'),
  });
  const monitoring = new MonitoringStack(app, `${id}-Monitoring`, {
    config,
    env,
    state,
    api,
    workers,
    routes,
    description: about('alarms and dashboard'),
  });
  const all = [state, api, workers, monitoring];
  for (const stack of all) {
    Tags.of(stack).add('app', 'template-marketplace');
    Tags.of(stack).add('stage', config.name);
  }
  return { config, state, api, workers, monitoring, all };
}
