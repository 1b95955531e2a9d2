/**
 * The facts docs/deployment.md and docs/cost.md state about a deployed stage (functions, stacks,
 * outputs, concurrency limits, alarms, the cost of an idle stage) are the ones the synthesized
 * templates of every stage hold: `npm run deployment-facts` writes them.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { deploymentFacts, type Synths, synthesizeAll, withFacts } from '../scripts/deployment-facts.ts';

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
    const functions = prod.resources.filter((r) => r.Type === 'AWS::Lambda::Function').length;
    expect(text).toContain(`**${functions} Lambda functions per stage**`);
    for (const o of prod.outputs.filter((o) => !o.id.startsWith('ExportsOutput') && !o.stack.includes('/')))
      expect(text, o.id).toContain(`\`${o.id}\``);
    for (const a of prod.resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm'))
      expect(text).toContain(`\`${String(a.Properties['AlarmName']).replace('template-marketplace-prod-', '')}\``);
  });

  it('refuses a doc without the markers of a section', () => {
    expect(() => withFacts('no markers here', [{ name: 'stacks', text: 'x' }])).toThrow('deployment-facts:stacks');
  });
});
