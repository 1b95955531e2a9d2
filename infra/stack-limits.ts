/**
 * CloudFormation's limits per stack and what each stack of a synthesized app uses of them, read
 * from the template files the synth wrote (nested stacks included). The growth tests assert on
 * these numbers and `npm run stack-sizes` prints them into docs/deployment.md.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

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
 * The table docs/deployment.md carries: each stack today and with `extra` generated routes, its
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
