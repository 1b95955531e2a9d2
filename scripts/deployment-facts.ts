/**
 * `npm run deployment-facts`: synthesizes every stage (without bundling) and writes what the
 * templates say into the docs, between markers: docs/deployment.md's functions, stacks, outputs,
 * concurrency limits and alarms, and docs/cost.md's monthly cost of an idle stage (infra/idle-cost.ts).
 * infra/deployment-facts.test.ts fails when a doc says otherwise.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AREAS } from '../infra/areas.ts';
import { idleCost, idleTotal } from '../infra/idle-cost.ts';
import { STAGES } from '../infra/stage-config.ts';
import { type Resource, type Synthesized, synthApp } from '../infra/test-synth.ts';
import { socketRoutes, workers } from '../lib/routes.ts';
import { buildWebAssets } from '../web/build.ts';

export const DEPLOYMENT_DOC = new URL('../docs/deployment.md', import.meta.url);
export const COST_DOC = new URL('../docs/cost.md', import.meta.url);

/** The flags whose synth adds outputs, each with the context that sets it. */
const FLAGS: Record<string, Record<string, string>> = {
  alarmEmail: { alarmEmail: 'ops@example.com' },
  domainName: {
    domainName: 'api.example.com',
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/example',
  },
};

export interface Synths {
  /** Each stage as `cdk synth -c stage=<name>` makes it, no flags. */
  stages: Record<string, Synthesized>;
  /** prod with each flag of FLAGS alone. */
  flagged: Record<string, Synthesized>;
}

export const synthesizeAll = (): Synths => ({
  stages: Object.fromEntries(Object.keys(STAGES).map((stage) => [stage, synthApp({ stage })])),
  flagged: Object.fromEntries(Object.entries(FLAGS).map(([flag, context]) => [flag, synthApp({ context })])),
});

const generic = (name: string, stage: string) => name.replaceAll(stage, '<stage>');
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const dollars = (x: number) => `$${x.toFixed(2)}`;

/** What a stack holds that is worth naming, by resource type. */
const HELD: Array<[type: string, one: string, many?: string]> = [
  ['AWS::DynamoDB::Table', 'DynamoDB table'],
  ['AWS::SQS::Queue', 'SQS queue'],
  ['AWS::SNS::Topic', 'SNS topic'],
  ['AWS::KMS::Key', 'KMS key'],
  ['AWS::ApiGateway::RestApi', 'REST API'],
  ['AWS::ApiGateway::Method', 'REST method'],
  ['AWS::ApiGatewayV2::Api', 'WebSocket API'],
  ['AWS::Lambda::Function', 'function'],
  ['AWS::Lambda::EventSourceMapping', 'event source'],
  ['AWS::Events::Rule', 'schedule'],
  ['AWS::IAM::Role', 'role'],
  ['AWS::Logs::LogGroup', 'log group'],
  ['AWS::CloudFront::Distribution', 'CloudFront distribution'],
  ['AWS::S3::Bucket', 'S3 bucket'],
  ['AWS::CloudWatch::Alarm', 'alarm'],
  ['AWS::CloudWatch::Dashboard', 'dashboard'],
  ['AWS::CloudFormation::Stack', 'nested stack'],
];

/**
 * The functions of a stage, in words no new route changes (a route's count is docs/operations.md's,
 * written with the route table): what the table makes besides the routes, and the CDK's own.
 */
export function functionsLine(synth: Synthesized): string {
  // Ours are named by functionIdOf (infra/lambda-function.ts): `<Name>Function` and the CDK's hash.
  const cdks = synth.resources.filter(
    (r) => r.Type === 'AWS::Lambda::Function' && !/^[A-Z]\w*Function[0-9A-F]{8}$/.test(r.id),
  ).length;
  return (
    'Lambda functions per stage: one per route of the table (docs/operations.md counts them), ' +
    `${count(Object.keys(workers).length, 'worker')} (${Object.keys(workers)
      .map((w) => `\`${w}\``)
      .join(', ')}), ` +
    `${count(socketRoutes.length, 'push channel route')} (${socketRoutes.map((r) => `\`${r.name}\``).join(', ')}), ` +
    `and **${count(cdks, "of the CDK's own", "of the CDK's own")}** (the handler that copies the web pages into their bucket).`
  );
}

/** What grows with the routes of an area's nested stack: named there without a count (the stack-sizes table below has its size). */
const PER_ROUTE = new Set(['AWS::Lambda::Function', 'AWS::ApiGateway::Method', 'AWS::ApiGateway::Resource']);

export function stacksTable(synth: Synthesized, stage: string): string {
  const rows = synth.usage.map((u) => {
    const resources = Object.values(u.template.Resources) as Resource[];
    const area = AREAS.some((a) => u.stack.endsWith(`/${a}`));
    const held = HELD.map(
      ([type, one, many]) => [type, resources.filter((r) => r.Type === type).length, one, many] as const,
    )
      .filter(([, n]) => n > 0)
      .map(([type, n, one, many]) =>
        area && PER_ROUTE.has(type) ? `its routes' ${many ?? `${one}s`}` : count(n, one, many),
      )
      .join(', ');
    return `| \`${generic(u.stack, stage)}\` | ${u.stack.includes('/') ? 'nested' : 'top level'}${area ? ' (an area)' : ''} | ${held} |`;
  });
  return ['| Stack | Kind | Holds |', '|---|---|---|', ...rows].join('\n');
}

/** Whether every stage has the same stacks with the same resources (by type). */
function sameShape(synths: Synths): boolean {
  const shape = (s: Synthesized, stage: string) =>
    JSON.stringify(s.resources.map((r) => `${generic(r.stack, stage)} ${r.Type}`).sort());
  const [first, ...rest] = Object.entries(synths.stages).map(([stage, s]) => shape(s, stage));
  return rest.every((x) => x === first);
}

function outputsTable(synths: Synths): string {
  // Cross-stack references (the CDK's Exports…) and a nested stack's outputs to its parent are plumbing.
  const named = (s: Synthesized) =>
    s.outputs.filter((o) => !o.id.startsWith('ExportsOutput') && !o.stack.includes('/'));
  const plain = named(synths.stages['prod']!);
  const rows = new Map<string, { stack: string; description: string; flags: string[] }>();
  for (const o of plain) rows.set(o.id, { stack: o.stack, description: descriptionOf(o), flags: [] });
  for (const [flag, synth] of Object.entries(synths.flagged))
    for (const o of named(synth)) {
      const row = rows.get(o.id) ?? { stack: o.stack, description: descriptionOf(o), flags: [] };
      if (!plain.some((p) => p.id === o.id)) row.flags.push(flag);
      rows.set(o.id, row);
    }
  return [
    '| Stack | Output | When | Description (from the template) |',
    '|---|---|---|---|',
    ...[...rows].map(
      ([id, r]) =>
        `| \`${generic(r.stack, 'prod')}\` | \`${id}\` | ${r.flags.length ? r.flags.map((f) => `with \`${f}\``).join(', ') : 'always'} | ${r.description} |`,
    ),
  ].join('\n');
}

const descriptionOf = (o: { Description?: unknown }): string =>
  typeof o.Description === 'string' ? o.Description.replaceAll('|', '\\|') : '';

/** `DeliverFunction062DB935` → `deliver`: the function's name in the route table (infra/lambda-function.ts, functionIdOf). */
const functionNameOf = (logicalId: string): string => {
  const id = logicalId.replace(/Function[0-9A-F]{8}$/, '');
  return `${id[0]!.toLowerCase()}${id.slice(1)}`;
};

function concurrencyTable(synths: Synths): string {
  const stages = Object.keys(synths.stages);
  const limits = new Map<string, Record<string, number>>();
  const set = (key: string, stage: string, value: number) =>
    limits.set(key, { ...(limits.get(key) ?? {}), [stage]: value });
  for (const [stage, synth] of Object.entries(synths.stages))
    for (const r of synth.resources) {
      if (r.Type === 'AWS::Lambda::Function' && r.Properties['ReservedConcurrentExecutions'] !== undefined)
        set(
          `\`${functionNameOf(r.id)}\` | reserved concurrency`,
          stage,
          r.Properties['ReservedConcurrentExecutions'] as number,
        );
      const scaling = r.Properties['ScalingConfig'] as { MaximumConcurrency?: number } | undefined;
      if (r.Type === 'AWS::Lambda::EventSourceMapping' && scaling?.MaximumConcurrency !== undefined) {
        const target = (r.Properties['FunctionName'] as { Ref: string }).Ref;
        set(
          `\`${functionNameOf(target)}\` | its queue's event source, maximum concurrency`,
          stage,
          scaling.MaximumConcurrency,
        );
      }
    }
  return [
    `| Function | Limit | ${stages.join(' | ')} |`,
    `|---|---|${stages.map(() => '---').join('|')}|`,
    ...[...limits]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, by]) => `| ${key} | ${stages.map((s) => by[s] ?? 'none').join(' | ')} |`),
  ].join('\n');
}

function alarmsTable(synths: Synths): string {
  const stages = Object.keys(synths.stages);
  const alarms = new Map<string, { description: string; rule: string; stages: string[] }>();
  for (const [stage, synth] of Object.entries(synths.stages))
    for (const a of synth.resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm')) {
      const name = generic(String(a.Properties['AlarmName']), stage).replace('template-marketplace-<stage>-', '');
      const p = a.Properties as Record<string, unknown>;
      const rule = `${OPERATORS[String(p['ComparisonOperator'])] ?? p['ComparisonOperator']} ${p['Threshold']}, ${p['DatapointsToAlarm'] ?? p['EvaluationPeriods']} of ${p['EvaluationPeriods']} × ${periodOf(a)} s`;
      const row = alarms.get(name) ?? {
        description: descriptionOf({ Description: p['AlarmDescription'] }),
        rule,
        stages: [],
      };
      row.stages.push(stage);
      alarms.set(name, row);
    }
  const counts = stages.map(
    (s) => `${s} ${synths.stages[s]!.resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length}`,
  );
  return [
    `Alarms per stage: ${counts.join(', ')}; each named \`template-marketplace-<stage>-<name>\`.`,
    '',
    '| Name | Fires when | Description (from the template) | Stages |',
    '|---|---|---|---|',
    ...[...alarms].map(
      ([name, a]) =>
        `| \`${name}\` | ${a.rule} | ${a.description} | ${a.stages.length === stages.length ? 'all' : a.stages.join(', ')} |`,
    ),
  ].join('\n');
}

const OPERATORS: Record<string, string> = {
  GreaterThanThreshold: '>',
  GreaterThanOrEqualToThreshold: '≥',
  LessThanThreshold: '<',
  LessThanOrEqualToThreshold: '≤',
};

const periodOf = (alarm: Resource): unknown => {
  const metrics = alarm.Properties['Metrics'] as Array<{ MetricStat?: { Period: number } }> | undefined;
  return metrics ? metrics.find((m) => m.MetricStat)?.MetricStat?.Period : alarm.Properties['Period'];
};

const unitPrice = (x: number): string =>
  x < 0.01 ? `$${(x * 1e6).toFixed(2)} per million` : `$${Number(x.toFixed(3))}`;

/** The bytes the web stack puts in its bucket (the built pages; web-config.json is a few bytes more). */
const webBytes = (): number => [...buildWebAssets().values()].reduce((n, a) => n + Buffer.byteLength(a.body), 0);

function idleCostTable(synths: Synths): string {
  const stages = Object.keys(synths.stages);
  const bytes = webBytes();
  const lines = Object.fromEntries(stages.map((s) => [s, idleCost(synths.stages[s]!.resources, bytes)]));
  const first = lines[stages[0]!]!;
  const amount = (x: number) =>
    x >= 100 ? Math.round(x).toLocaleString('en-US') : x < 0.01 ? x.toFixed(6) : String(Number(x.toFixed(2)));
  return [
    `| Billed while idle | Unit price a month | ${stages.join(' | ')} |`,
    `|---|---|${stages.map(() => '---').join('|')}|`,
    ...first.map(
      (line, i) =>
        `| ${line.item} | ${unitPrice(line.unitPrice)} | ${stages
          .map((s) => `${amount(lines[s]![i]!.count)}: ${dollars(lines[s]![i]!.monthly)}`)
          .join(' | ')} |`,
    ),
    `| **Total a month** | | ${stages.map((s) => `**${dollars(idleTotal(lines[s]!))}**`).join(' | ')} |`,
  ].join('\n');
}

/** Each generated section by its marker name, and the file it is in. */
export function deploymentFacts(synths: Synths): Array<{ doc: URL; name: string; text: string }> {
  const prod = synths.stages['prod']!;
  return [
    { doc: DEPLOYMENT_DOC, name: 'functions', text: functionsLine(prod) },
    {
      doc: DEPLOYMENT_DOC,
      name: 'stacks',
      text: `${stacksTable(prod, 'prod')}\n\n${sameShape(synths) ? `Every stage (${Object.keys(synths.stages).join(', ')}) has these stacks with the same resources; the stages differ in settings, such as the limits below.` : 'The stages differ in their resources: this table is prod.'}`,
    },
    { doc: DEPLOYMENT_DOC, name: 'outputs', text: outputsTable(synths) },
    { doc: DEPLOYMENT_DOC, name: 'concurrency', text: concurrencyTable(synths) },
    { doc: DEPLOYMENT_DOC, name: 'alarms', text: alarmsTable(synths) },
    { doc: COST_DOC, name: 'idle-cost', text: idleCostTable(synths) },
  ];
}

const start = (name: string) => `<!-- deployment-facts:${name}:start (npm run deployment-facts) -->`;
const end = (name: string) => `<!-- deployment-facts:${name}:end -->`;

/** `text` with each of `sections` (of this doc) between its markers; throws when a marker pair is missing. */
export function withFacts(text: string, sections: ReadonlyArray<{ name: string; text: string }>): string {
  let out = text;
  for (const section of sections) {
    const from = out.indexOf(start(section.name));
    const to = out.indexOf(end(section.name));
    if (from < 0 || to < from) throw new Error(`no ${start(section.name)} … ${end(section.name)} block`);
    out = `${out.slice(0, from + start(section.name).length)}\n${section.text}\n${out.slice(to)}`;
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const facts = deploymentFacts(synthesizeAll());
  for (const doc of [DEPLOYMENT_DOC, COST_DOC]) {
    const sections = facts.filter((f) => f.doc === doc);
    writeFileSync(doc, withFacts(readFileSync(doc, 'utf8'), sections));
  }
  process.stdout.write('docs/deployment.md and docs/cost.md facts written\n');
}
