/**
 * CloudFormation's limits per stack and what each stack of a synthesized app uses of them, read
 * from the template files the synth wrote (nested stacks included). The growth tests assert on
 * these numbers and `npm run stack-sizes` prints them into docs/deployment.md.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { AREAS } from './areas.ts';

/** https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html */
export const CFN_LIMITS = {
  resources: 500,
  /** Template body uploaded through S3 (the CDK does for every stack with assets). */
  templateBytes: 1_000_000,
  outputs: 200,
  parameters: 200,
} as const;

/** One stack's (or nested stack's) use of each limit, and the template it was read from. */
export interface StackUsage {
  stack: string;
  resources: number;
  templateBytes: number;
  outputs: number;
  parameters: number;
  /** The largest CloudWatch dashboard body in this stack (bytes), 0 when it has none; CloudWatch takes up to 1 MB. */
  dashboardBytes: number;
  template: Template;
}

/** A value of a parsed template: its shape is CloudFormation's, read by tests that know what they look for. */
// biome-ignore lint/suspicious/noExplicitAny: parsed CloudFormation JSON, any shape
export type TemplateJson = any;
export type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, TemplateJson> }>;
  Outputs?: Record<string, TemplateJson>;
  Parameters?: Record<string, TemplateJson>;
};

/** Every stack under `app` (nested ones too), with its use of each limit. Call after `app.synth()`. */
export function stackUsage(app: App, outdir: string): StackUsage[] {
  const stacks = app.node.findAll().filter((c: IConstruct): c is Stack => Stack.isStack(c));
  return stacks.map((stack) => {
    const text = readFileSync(join(outdir, stack.templateFile), 'utf8');
    const template = JSON.parse(text) as Template;
    const dashboards = Object.values(template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    return {
      stack: stack.nested ? `${stack.nestedStackParent!.stackName}/${stack.node.id}` : stack.stackName,
      resources: Object.keys(template.Resources).length,
      templateBytes: Buffer.byteLength(text),
      outputs: Object.keys(template.Outputs ?? {}).length,
      // CDK adds a BootstrapVersion parameter to every top-level stack.
      parameters: Object.keys(template.Parameters ?? {}).length,
      dashboardBytes: Math.max(
        0,
        ...dashboards.map((d) => JSON.stringify(d.Properties?.['DashboardBody'] ?? '').length),
      ),
      template,
    };
  });
}

/** The highest share of any limit a stack uses (1 = at the limit). */
export const worstShare = (usage: StackUsage): number =>
  Math.max(
    usage.resources / CFN_LIMITS.resources,
    usage.templateBytes / CFN_LIMITS.templateBytes,
    usage.outputs / CFN_LIMITS.outputs,
    usage.parameters / CFN_LIMITS.parameters,
  );

/** CloudFormation resources the whole app adds per added route (several stacks together). */
export const resourcesIn = (usage: StackUsage[]): number => usage.reduce((sum, u) => sum + u.resources, 0);

const pct = (used: number, limit: number) => `${((100 * used) / limit).toFixed(1)} %`;

/**
 * The table `npm run stack-sizes` prints: each stack today and with `extra` generated routes, its
 * resources, template bytes, outputs and parameters, and the largest share of a limit.
 */
export function usageTable(today: StackUsage[], grown: StackUsage[], extra: number): string {
  const rows = today.map((u) => {
    const g = grown.find((x) => x.stack === u.stack)!;
    return `| ${u.stack} | ${u.resources} | ${g.resources} | ${u.templateBytes} | ${g.templateBytes} | ${u.outputs} | ${u.parameters} | ${pct(worstShare(u), 1)} | ${pct(worstShare(g), 1)} |`;
  });
  return [
    `| Stack | Resources | Resources +${extra} routes | Template bytes | Template bytes +${extra} routes | Outputs | Parameters | Largest share of a limit | Largest share +${extra} routes |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    `| **All stacks** | ${resourcesIn(today)} | ${resourcesIn(grown)} | ${today.reduce((s, u) => s + u.templateBytes, 0)} | ${grown.reduce((s, u) => s + u.templateBytes, 0)} | | | | |`,
  ].join('\n');
}

/** What a route adds to its area's nested stack: its function and method, and on a new path the path's resource and its CORS preflight. */
export const RESOURCES_PER_ROUTE = { existingPath: 2, newPath: 4 } as const;

/** The resource types a route makes; an area's nested stack holds nothing else (`areaStackProblems`). */
const ROUTE_RESOURCE_TYPES = new Set(['AWS::Lambda::Function', 'AWS::ApiGateway::Method', 'AWS::ApiGateway::Resource']);

/** Whether a stack is an area's nested stack (infra/areas.ts): it holds routes and nothing else. */
export const isAreaStack = (usage: Pick<StackUsage, 'stack'>): boolean =>
  AREAS.some((area) => usage.stack.endsWith(`-Api/${area}`));

/** The resources of an area's nested stack that a route did not make (none, or the room per area below is wrong). */
export const areaStackProblems = (usage: StackUsage): string[] =>
  Object.entries(usage.template.Resources)
    .filter(([, r]) => !ROUTE_RESOURCE_TYPES.has(r.Type))
    .map(([id, r]) => `${usage.stack}: ${id} (${r.Type}) is not a route's`);

/** The template bytes a route adds to its area's stack: those of `extra` generated routes (all in one area), each. */
export function bytesPerRoute(today: StackUsage[], grown: StackUsage[], extra: number): number {
  const grew = grown.filter((g) => g.templateBytes !== today.find((u) => u.stack === g.stack)?.templateBytes);
  if (grew.length !== 1)
    throw new Error(`the ${extra} generated routes should grow one area's stack, not ${grew.length}`);
  return (grew[0]!.templateBytes - today.find((u) => u.stack === grew[0]!.stack)!.templateBytes) / extra;
}

/**
 * docs/deployment.md's table: the same with one more route, whatever its area. A stack without
 * routes shows its size and its largest share of a limit; an area's nested stack, which holds only
 * its routes' resources, shows what a route adds (resources, and `perRouteBytes` of template) and
 * how many routes it holds under each limit. The number of routes an area has today, and its size,
 * are `npm run stack-sizes`'s to print.
 */
export function roomTable(today: StackUsage[], perRouteBytes: number): string {
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
  const atNew = Math.floor(CFN_LIMITS.resources / RESOURCES_PER_ROUTE.newPath);
  const atExisting = Math.floor(CFN_LIMITS.resources / RESOURCES_PER_ROUTE.existingPath);
  const byBytes = Math.floor(CFN_LIMITS.templateBytes / perRouteBytes);
  const rows = today.map((u) =>
    isAreaStack(u)
      ? `| ${u.stack} | ${RESOURCES_PER_ROUTE.existingPath} per route, ${RESOURCES_PER_ROUTE.newPath} on a new path | about ${kb(perRouteBytes)} per route (${byBytes} routes to the limit) | ${u.outputs} | ${u.parameters} | ${pct(RESOURCES_PER_ROUTE.newPath, CFN_LIMITS.resources)} per route on a new path | ${atNew} on new paths, ${atExisting} on paths that exist |`
      : `| ${u.stack} | ${u.resources} | ${u.templateBytes} | ${u.outputs} | ${u.parameters} | ${pct(worstShare(u), 1)} | none: it does not grow with routes |`,
  );
  return [
    '| Stack | Resources | Template bytes | Outputs | Parameters | Largest share of a limit | Routes it holds |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * The cells of roomTable a test holds docs/deployment.md to: stack, resources, outputs, parameters
 * and routes held. Template bytes, and the share they give, move with every property and are informative only.
 */
export const checkedCells = (table: string): string[] =>
  table
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map((cells) => [cells[1], cells[2], cells[4], cells[5], cells[7]].join(' | '));

/** The table between docs/deployment.md's stack-sizes markers. */
export function deploymentDocTable(): string {
  const doc = readFileSync(new URL('../docs/deployment.md', import.meta.url), 'utf8');
  return doc.slice(doc.indexOf('<!-- stack-sizes:start -->'), doc.indexOf('<!-- stack-sizes:end -->'));
}
