import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from './source-files.ts';

/**
 * The layers of CONTRIBUTING.md ("Layers"), each allowed to import only its own layer and those
 * below: core ← store ← domain ← http ← entry points (functions, including the workers; local;
 * infra; scripts; bench). An arrow back up fails here with the file and the import.
 */
const LAYERS = ['core', 'store', 'domain', 'http', 'entry'] as const;
type Layer = (typeof LAYERS)[number];

/** The shared plumbing that sits with the store: the AWS clients' set-up, logging, zod. */
const STORE_LAYER_FILES = ['lib/log.ts', 'lib/zod.ts', 'lib/aws-endpoint.ts', 'lib/observability/names.ts'];

function layerOf(path: string): Layer | undefined {
  if (path.startsWith('lib/core/')) return 'core';
  if (path.startsWith('lib/store/') || path.startsWith('lib/aws/') || STORE_LAYER_FILES.includes(path)) return 'store';
  if (path.startsWith('lib/http/')) return 'http';
  if (path.startsWith('lib/')) return 'domain';
  if (/^(functions|local|infra|scripts|bench)\//.test(path)) return 'entry';
  return undefined;
}

const rank = (layer: Layer) => LAYERS.indexOf(layer);
const CHECKED = ['lib', 'functions', 'local', 'infra', 'scripts', 'bench'];

function arrowsUp(files: string[], imports: (file: string) => string[] = importsOf): string[] {
  return files.flatMap((file) => {
    const from = layerOf(file)!;
    return imports(file)
      .filter((target) => {
        if (target === 'aws-lambda' || target.startsWith('aws-lambda/')) return rank(from) < rank('http');
        const to = layerOf(target);
        return to !== undefined && rank(to) > rank(from);
      })
      .map((target) => `${file} (${from}) imports ${target}`);
  });
}

describe('import layers', () => {
  it('places every checked file in a layer, and sees imports (type imports too)', () => {
    const files = sourceFiles(...CHECKED);
    expect(files.filter((f) => !layerOf(f))).toEqual([]);
    expect(importsOf('lib/http/caller.ts')).toEqual(
      expect.arrayContaining(['aws-lambda', 'lib/core/errors.ts', 'lib/core/caller.ts']),
    );
    // The check reports an arrow up when there is one, and not an arrow down.
    const imports = () => ['lib/http/errors.ts', 'lib/store/keys.ts', 'aws-lambda'];
    expect(arrowsUp(['lib/marketplace/x.ts'], imports)).toEqual([
      'lib/marketplace/x.ts (domain) imports lib/http/errors.ts',
      'lib/marketplace/x.ts (domain) imports aws-lambda',
    ]);
    expect(arrowsUp(['functions/x.ts'], imports)).toEqual([]);
  });

  it('has no arrow back up: core ← store ← domain ← http ← functions/local/infra', () => {
    expect(arrowsUp(sourceFiles(...CHECKED))).toEqual([]);
  });

  it('keeps aws-lambda out of lib/ below lib/http/', () => {
    const below = sourceFiles('lib').filter((f) => rank(layerOf(f)!) < rank('http'));
    expect(below.filter((f) => importsOf(f).some((t) => t === 'aws-lambda'))).toEqual([]);
  });

  it('lib/agents does not import lib/events (events read agents, not the other way)', () => {
    expect(
      sourceFiles('lib/agents').flatMap((f) =>
        importsOf(f)
          .filter((t) => t.startsWith('lib/events/'))
          .map((t) => `${f} → ${t}`),
      ),
    ).toEqual([]);
  });

  it('has no import cycle among the files of lib/', () => {
    const files = sourceFiles('lib');
    const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => t.startsWith('lib/'))]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
