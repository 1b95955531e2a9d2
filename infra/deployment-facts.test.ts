/**
 * The facts docs/deployment.md and docs/cost.md state about a deployed stage (functions, stacks,
 * outputs, concurrency limits, alarms, the cost of an idle stage) are the ones the synthesized
 * templates of every stage hold: `npm run deployment-facts` writes them.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.ts';
import {
  deploymentFacts,
  functionsLine,
  type Synths,
  stacksTable,
  synthesizeAll,
  withFacts,
} from '../scripts/deployment-facts.ts';
import { allFunctions } from './bundle.ts';
import { generatedRoutes, synthApp } from './test-synth.ts';

let facts: ReturnType<typeof deploymentFacts>;
let synths: Synths;

beforeAll(() => {
  synths = synthesizeAll();
  facts = deploymentFacts(synths);
}, 600_000);

describe('the deployment facts in the docs', () => {
  it.each(['docs/deployment.md', 'docs/cost.md'])(
    '%s holds what the synth of every stage says (npm run deployment-facts)',
    (file) => {
      const doc = new URL(`../${file}`, import.meta.url);
      const text = readFileSync(doc, 'utf8');
      const sections = facts.filter((f) => f.doc.href === doc.href);
      expect(sections.length).toBeGreaterThan(0);
      expect(withFacts(text, sections)).toBe(text);
    },
  );

  it('name every function, output and alarm of the templates', () => {
    const prod = synths.stages['prod']!;
    const text = facts.map((f) => f.text).join('\n');
    // The route table's functions (docs/operations.md counts them) and the CDK's own make every function of the stage.
    const functions = prod.resources.filter((r) => r.Type === 'AWS::Lambda::Function').length;
    const cdks = Number(/\*\*(\d+) of the CDK's own\*\*/.exec(text)?.[1]);
    expect(allFunctions().length + cdks).toBe(functions);
    for (const o of prod.outputs.filter((o) => !o.id.startsWith('ExportsOutput') && !o.stack.includes('/')))
      expect(text, o.id).toContain(`\`${o.id}\``);
    for (const a of prod.resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm'))
      expect(text).toContain(`\`${String(a.Properties['AlarmName']).replace('template-marketplace-prod-', '')}\``);
  });

  it('are the same with more routes: a new route changes docs/operations.md (which counts routes), not docs/deployment.md', () => {
    const grown = synthApp({ routes: [...routes, ...generatedRoutes(10)] });
    const prod = synths.stages['prod']!;
    expect(functionsLine(grown)).toBe(functionsLine(prod));
    expect(stacksTable(grown, 'prod')).toBe(stacksTable(prod, 'prod'));
  }, 300_000);

  it('refuses a doc without the markers of a section', () => {
    expect(() => withFacts('no markers here', [{ name: 'stacks', text: 'x' }])).toThrow('deployment-facts:stacks');
  });
});
