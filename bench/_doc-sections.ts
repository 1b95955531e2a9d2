/**
 * Where each bench's section lives: docs/benchmarks.md, between `<!-- BENCH:<area>:BEGIN … -->` and
 * `<!-- BENCH:<area>:END -->`. `npm run bench` replaces what is between an area's markers with what
 * that area's `run()` returned, so the tables there are always a bench's own output.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const BENCH_DOC = new URL('../docs/benchmarks.md', import.meta.url);

const begin = (area: string) => `<!-- BENCH:${area}:BEGIN`;
const end = (area: string) => `<!-- BENCH:${area}:END -->`;

/** `doc` with `area`'s section replaced by `section`; throws when the area has no markers, or more than one pair. */
export function withBenchSection(doc: string, area: string, section: string): string {
  const start = doc.indexOf(begin(area));
  const stop = doc.indexOf(end(area));
  if (start < 0 || stop < start || doc.indexOf(begin(area), start + 1) >= 0) {
    throw new Error(
      `docs/benchmarks.md needs one pair of markers for ${area}: ${begin(area)} … -->, then ${end(area)}`,
    );
  }
  const afterBegin = doc.indexOf('-->', start) + '-->'.length;
  return `${doc.slice(0, afterBegin)}\n${section.trim()}\n${doc.slice(stop)}`;
}

export function writeBenchSection(area: string, section: string): void {
  writeFileSync(BENCH_DOC, withBenchSection(readFileSync(BENCH_DOC, 'utf8'), area, section));
}
