import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCH_DOC, withBenchSection } from '../../bench/_doc-sections.ts';
import { benchAreas } from '../../bench/run.ts';

const doc = readFileSync(BENCH_DOC, 'utf8');

describe('docs/benchmarks.md: each bench writes its own section', () => {
  it.each(benchAreas().map((area) => [area, area]))(
    'has one pair of markers for %s, so `npm run bench -- %s` can write its table',
    (area) => {
      expect(() => withBenchSection(doc, area, 'x')).not.toThrow();
    },
  );

  it("replaces what is between one area's markers and nothing else", () => {
    const written = withBenchSection(doc, 'sse', '### New table\n\n| a |\n|---|\n| 1 |');
    expect(written).toContain('### New table');
    expect(written).not.toContain('### Server-sent events: time to the stream and table reads');
    expect(withBenchSection(written, 'sse', 'again')).toContain('-->\nagain\n<!-- BENCH:sse:END -->');
    expect(written.replace(/<!-- BENCH:sse:BEGIN[\s\S]*?<!-- BENCH:sse:END -->/, '')).toBe(
      doc.replace(/<!-- BENCH:sse:BEGIN[\s\S]*?<!-- BENCH:sse:END -->/, ''),
    );
  });

  it('refuses an area without markers', () => {
    expect(() => withBenchSection(doc, 'no-such-area', 'x')).toThrow(/no-such-area/);
  });
});
