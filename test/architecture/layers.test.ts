import { describe, expect, it } from 'vitest';
import { dynamoDbCallers, sendingHelpers, storeHelpers } from './dynamodb-calls.ts';
import { importsOf, sourceFiles, tokenize, valueImports } from './source-files.ts';

/**
 * The layers of CONTRIBUTING.md ("Layers"), each allowed to import only its own layer and those
 * below: core ← store ← domain ← http ← entry points (functions, including the workers; local;
 * infra; scripts; bench). An arrow back up fails here with the file and the import.
 */
const LAYERS = ['core', 'store', 'domain', 'http', 'entry'] as const;
type Layer = (typeof LAYERS)[number];

/** The shared plumbing that sits with the store: the AWS clients' set-up, logging, zod. */
const STORE_LAYER_FILES = [
  'lib/observability/log.ts',
  'lib/zod.ts',
  'lib/aws-endpoint.ts',
  'lib/observability/names.ts',
];

function layerOf(path: string): Layer | undefined {
  if (path.startsWith('lib/core/')) return 'core';
  if (path.startsWith('lib/store/') || path.startsWith('lib/aws/') || STORE_LAYER_FILES.includes(path)) return 'store';
  if (path.startsWith('lib/http/')) return 'http';
  if (path.startsWith('lib/')) return 'domain';
  if (/^(functions|local|infra|scripts|bench|fixtures)\//.test(path)) return 'entry';
  return undefined;
}

const rank = (layer: Layer) => LAYERS.indexOf(layer);
const CHECKED = ['lib', 'functions', 'local', 'infra', 'scripts', 'bench', 'fixtures'];

const isTest = (path: string) => path.startsWith('test/') || path.endsWith('.test.ts');
const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

/**
 * Houses whose rooms may use the files at the house's top (local/: ports, config, the lock;
 * lib/marketplace/: the routes' request schemas) while the top's entry files compose the rooms.
 * A room's arrow to its own house's top is not a loop; lib/ itself is no house (its top files are
 * plumbing every folder uses, so a loop through them counts), nor is lib/events (relay and service
 * on top, the rooms below never reach up).
 */
const HOUSES = ['local', 'lib/marketplace'];
const isRoomToHouse = (from: string, to: string) => HOUSES.includes(to) && from.startsWith(`${to}/`);

/**
 * Loops between folders: folder A imports from folder B while B, directly or through others,
 * imports from A. Each file stands for its folder, so a loop shows even when no file imports
 * itself back (lib/observability/lambda.ts → lib/log.ts → lib/observability/names.ts was one, before lib/log.ts moved into lib/observability/).
 * Reported as the folders of the loop, each with one import that makes the arrow.
 */
function folderLoops(files: string[], imports: (file: string) => string[] = importsOf): string[] {
  const arrows = new Map<string, Map<string, string>>();
  for (const file of files.filter((f) => !isTest(f))) {
    for (const target of imports(file)) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (!files.includes(target) || from === to || isRoomToHouse(from, to)) continue;
      const out = arrows.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${file} → ${target}`);
      arrows.set(from, out);
    }
  }
  const state = new Map<string, 'open' | 'done'>();
  const loops: string[] = [];
  const visit = (folder: string, path: string[]) => {
    if (state.get(folder) === 'done') return;
    if (state.get(folder) === 'open') {
      const loop = [...path.slice(path.indexOf(folder)), folder];
      loops.push(
        loop
          .slice(1)
          .map((to, i) => arrows.get(loop[i]!)!.get(to)!)
          .join(', '),
      );
      return;
    }
    state.set(folder, 'open');
    for (const next of arrows.get(folder)?.keys() ?? []) visit(next, [...path, folder]);
    state.set(folder, 'done');
  };
  for (const folder of [...arrows.keys()].sort()) visit(folder, []);
  return loops;
}

/** Shipped and tooling code that imports a test file: fixtures two sides share belong in fixtures/. */
const importsOfTests = (files: string[], imports: (file: string) => string[] = importsOf): string[] =>
  files
    .filter((f) => !isTest(f))
    .flatMap((f) =>
      imports(f)
        .filter((t) => t.startsWith('test/'))
        .map((t) => `${f} → ${t}`),
    );

/**
 * What a Lambda bundle is built from (functions/ and lib/) importing docs/: docs are for readers,
 * and what a function serves as data is generated into generated/ (BUNDLE_INPUTS in infra/bundle.ts).
 */
const bundleImportsOfDocs = (files: string[], imports: (file: string) => string[] = importsOf): string[] =>
  files
    .filter((f) => /^(functions|lib)\//.test(f) && !isTest(f))
    .flatMap((f) =>
      imports(f)
        .filter((t) => t.startsWith('docs/'))
        .map((t) => `${f} → ${t}`),
    );

/** Files that import themselves back, directly or through others, each cycle as the path round it. */
function fileCycles(files: string[], imports: (file: string) => string[] = importsOf): string[] {
  const graph = new Map(files.map((f) => [f, imports(f).filter((t) => files.includes(t))]));
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
  return cycles;
}

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

  it('keeps aws-lambda and middy (the HTTP stack) out of lib/ below lib/http/, and sees a planted import', () => {
    const lambdaBelowHttp = (files: string[], imports: (f: string) => string[] = importsOf) =>
      files
        .filter((f) => f.startsWith('lib/') && rank(layerOf(f)!) < rank('http'))
        .filter((f) => imports(f).some((t) => t === 'aws-lambda' || t.startsWith('@middy/')));
    const planted = () => ['@middy/core'];
    expect(
      lambdaBelowHttp(['lib/observability/lambda.ts', 'lib/http/invocation.ts', 'functions/x.ts'], planted),
    ).toEqual(['lib/observability/lambda.ts']);
    expect(lambdaBelowHttp(sourceFiles('lib'))).toEqual([]);
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

  it('has no loop between folders, and sees one in a planted import graph', () => {
    const planted: Record<string, string[]> = {
      'lib/a/one.ts': ['lib/b/two.ts'],
      'lib/b/two.ts': ['lib/c/three.ts'],
      'lib/c/three.ts': ['lib/a/other.ts'],
      'lib/a/other.ts': [],
      'lib/d/four.ts': ['lib/a/one.ts'],
      // A room leaning on its house's top, and tests, make no loop.
      'local/x/five.ts': ['local/top.ts'],
      'local/top.ts': ['local/x/five.ts'],
      'lib/a/one.test.ts': ['lib/d/four.ts'],
    };
    const plantedImports = (f: string) => planted[f] ?? [];
    expect(folderLoops(Object.keys(planted), plantedImports)).toEqual([
      'lib/a/one.ts → lib/b/two.ts, lib/b/two.ts → lib/c/three.ts, lib/c/three.ts → lib/a/other.ts',
    ]);
    // No file imports itself back there, so the file-level cycle check below would pass it.
    delete planted['lib/c/three.ts'];
    expect(folderLoops(Object.keys(planted), plantedImports)).toEqual([]);
    expect(folderLoops(sourceFiles(...CHECKED))).toEqual([]);
  });

  it('keeps test code out of everything that is not a test, and sees a planted import', () => {
    const planted = (f: string) =>
      f === 'bench/x.ts' ? ['test/support/y.ts', 'lib/core/ids.ts'] : ['test/support/y.ts'];
    expect(importsOfTests(['bench/x.ts', 'test/z.test.ts', 'infra/w.test.ts'], planted)).toEqual([
      'bench/x.ts → test/support/y.ts',
    ]);
    expect(importsOfTests(sourceFiles(...CHECKED, 'client', 'examples'))).toEqual([]);
  });

  it('builds no function from docs/, and sees a planted import', () => {
    const planted = () => ['docs/openapi.json', 'generated/openapi.json'];
    expect(bundleImportsOfDocs(['functions/x.ts', 'scripts/y.ts'], planted)).toEqual([
      'functions/x.ts → docs/openapi.json',
    ]);
    expect(bundleImportsOfDocs(sourceFiles('functions', 'lib'))).toEqual([]);
  });

  it("makes DynamoDB calls only in a store.ts (or lib/store/), through the SDK or the repository's own helpers", () => {
    const helpers = storeHelpers();
    // The helpers are found in lib/store/, not listed: every wrapper that sends a request is one.
    expect([...helpers.keys()]).toEqual(
      expect.arrayContaining([
        'db',
        'batchGet',
        'batchWrite',
        'transactWrite',
        'conditionalUpdate',
        'cursorPage',
        'queryAll',
      ]),
    );
    expect(helpers.has('keyString')).toBe(false);
    const files = sourceFiles('lib', 'functions').filter((f) => !/^lib\/(store|aws)\//.test(f));
    expect(dynamoDbCallers(files, helpers).filter((f) => !f.endsWith('/store.ts'))).toEqual([]);
    expect(dynamoDbCallers(['lib/events/delivery/store.ts', 'lib/marketplace/templates/store.ts'], helpers)).toEqual([
      'lib/events/delivery/store.ts',
      'lib/marketplace/templates/store.ts',
    ]);
  });

  it('sees a planted DynamoDB call through a helper of lib/store/, through a wrapper of a wrapper, and handed on', () => {
    const planted: Record<string, string> = {
      'lib/store/client.ts': 'export function db() { return client; }',
      'lib/store/wrap.ts':
        "import { db } from './client.ts';\nconst send = (c) => db().send(c);\nexport const putIt = (i) => send(i);\nexport const pure = (k) => k.PK;",
      'lib/store/wrap-again.ts':
        "import { putIt } from './wrap.ts';\nexport async function putTwice(i) { await putIt(i); await putIt(i); }",
      'lib/a/calls.ts': "import { putTwice } from '../store/wrap-again.ts';\nexport const f = () => putTwice({});",
      'lib/a/hands-on.ts': "import { putIt } from '../store/wrap.ts';\nexport const g = (w = putIt) => w;",
      'lib/a/pure.ts': "import { pure } from '../store/wrap.ts';\nimport type { putIt } from '../store/wrap.ts';",
      'lib/a/types.ts': "import { type QueryCommandInput } from '@aws-sdk/lib-dynamodb';",
      'lib/a/sdk.ts': "import { type X, GetCommand } from '@aws-sdk/lib-dynamodb';",
    };
    const tokens = (f: string) => tokenize(planted[f]!);
    const helpers = sendingHelpers(['lib/store/client.ts', 'lib/store/wrap.ts', 'lib/store/wrap-again.ts'], tokens);
    expect([...helpers].sort()).toEqual([
      ['db', 'lib/store/client.ts'],
      ['putIt', 'lib/store/wrap.ts'],
      ['putTwice', 'lib/store/wrap-again.ts'],
    ]);
    const domain = Object.keys(planted).filter((f) => f.startsWith('lib/a/'));
    expect(dynamoDbCallers(domain, helpers, tokens)).toEqual(['lib/a/calls.ts', 'lib/a/hands-on.ts', 'lib/a/sdk.ts']);
  });

  it('keeps answer schemas (zod, for the OpenAPI document) out of function bundles: elsewhere their types only', () => {
    const isAnswer = (f: string) => /^lib\/.*\/answer\.ts$/.test(f) || f === 'lib/core/answer-fields.ts';
    const mayUseValues = (f: string) => isAnswer(f) || f.startsWith('lib/http/openapi/') || isTest(f);
    const valueUses = (files: string[], imports: (f: string) => { from: string; name: string }[] = valueImports) =>
      files
        .filter((f) => !mayUseValues(f))
        .flatMap((f) =>
          imports(f)
            .filter((i) => isAnswer(i.from))
            .map((i) => `${f} → ${i.from} (${i.name})`),
        );
    const planted = (f: string) =>
      f === 'lib/a/service.ts'
        ? [{ from: 'lib/a/answer.ts', name: 'aAnswer' }]
        : [{ from: 'lib/marketplace/templates/answer.ts', name: 'templateAnswer' }];
    expect(valueUses(['lib/a/service.ts', 'lib/http/openapi/schemas.ts', 'lib/b/answer.ts'], planted)).toEqual([
      'lib/a/service.ts → lib/a/answer.ts (aAnswer)',
    ]);
    const files = sourceFiles(...CHECKED);
    expect(files.filter(isAnswer).length).toBeGreaterThan(10);
    expect(valueUses(files)).toEqual([]);
  });

  it('no room of lib/events reaches up to relay or service', () => {
    const rooms = sourceFiles('lib/events').filter((f) => f.split('/').length > 3);
    expect(
      rooms.flatMap((f) =>
        importsOf(f)
          .filter((t) => /^lib\/events\/[^/]+\.ts$/.test(t))
          .map((t) => `${f} → ${t}`),
      ),
    ).toEqual([]);
  });

  it('has no import cycle among the files of any folder, and sees a planted one', () => {
    const planted: Record<string, string[]> = {
      'bench/a.ts': ['bench/b.ts'],
      'bench/b.ts': ['lib/c.ts'],
      'lib/c.ts': ['bench/a.ts'],
      'client/d.ts': ['client/d.ts'],
      'infra/e.ts': ['lib/c.ts'],
    };
    expect(fileCycles(Object.keys(planted), (f) => planted[f] ?? [])).toEqual([
      'bench/a.ts → bench/b.ts → lib/c.ts → bench/a.ts',
      'client/d.ts → client/d.ts',
    ]);
    expect(fileCycles(sourceFiles(...CHECKED, 'client'))).toEqual([]);
  });
});
