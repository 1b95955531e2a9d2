/**
 * Asset hashes follow each function's own inputs (infra/asset-hash.ts): in a scratch copy of the
 * sources, a change to one domain file moves the hashes of exactly the functions whose bundle it
 * changes, and no other; a package's locked version moves those that bundle the package.
 */
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeOpenApiDocument } from '../local/openapi-document.ts';
import { assetHashes, lockedPackages } from './asset-hash.ts';
import { allFunctions, buildFunctions, bundleAssetHash, type FunctionsBuild, hashSettings } from './bundle.ts';

const root = join(import.meta.dirname, '..');
const entries = [...new Set(allFunctions().map((f) => f.entry))].sort();
/** A domain file a few functions import (the reviews' store), and what it gets: a statement that lands in each bundle. */
const TOUCHED = 'lib/marketplace/reviews/store.ts';
const TOUCH = '\nexport const touchedByTest = Date.now();\nconsole.debug(touchedByTest);\n';

let scratch: string;
let before: FunctionsBuild;
let after: FunctionsBuild;

beforeAll(async () => {
  await writeOpenApiDocument();
  scratch = mkdtempSync(join(tmpdir(), 'asset-hash-'));
  for (const path of ['lib', 'functions', 'generated', 'package.json', 'package-lock.json', 'tsconfig.json'])
    cpSync(join(root, path), join(scratch, path), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
  before = buildFunctions(entries, scratch);
  appendFileSync(join(scratch, TOUCHED), TOUCH);
  after = buildFunctions(entries, scratch);
}, 600_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const moved = (a: Map<string, string>, b: Map<string, string>) => entries.filter((e) => a.get(e) !== b.get(e));
const bytesOf = (build: FunctionsBuild, entry: string) =>
  Buffer.concat(build.bundles.get(entry)!.map((f) => f.contents)).toString('base64');

describe('asset hashes', () => {
  it('are the same in any checkout of the same sources (a scratch copy hashes as this one does)', {
    timeout: 300_000,
  }, () => {
    expect(entries.filter((e) => before.hashes.get(e) !== bundleAssetHash(e))).toEqual([]);
    expect(new Set(before.hashes.values()).size).toBe(entries.length);
  });

  it(`move for exactly the functions whose bundle a change to ${TOUCHED} changes, and stay for every other`, () => {
    const rebundled = entries.filter((e) => bytesOf(before, e) !== bytesOf(after, e));
    const hashMoved = moved(before.hashes, after.hashes);
    expect(hashMoved).toEqual(rebundled);
    expect(hashMoved.length).toBeGreaterThan(0);
    expect(hashMoved.length).toBeLessThan(entries.length / 4);
  });

  it("move for the functions that bundle a package when the lockfile changes that package's version, and stay for every other", () => {
    const settings = hashSettings(scratch);
    const locked = { ...lockedPackages(scratch) };
    locked['node_modules/zod'] = { ...locked['node_modules/zod'], version: '0.0.0-test' };
    const rehashed = assetHashes(after.metafile, entries, { ...settings, locked });
    // Read from what each bundle holds (the metafile's outputs), not from the import graph the hash walks.
    const holdingZod = entries.filter((entry) => {
      const output = Object.entries(after.metafile.outputs).find(([, o]) => o.entryPoint === entry)![1];
      return Object.keys(output.inputs).some((input) => input.includes('node_modules/zod/'));
    });
    expect(moved(after.hashes, rehashed)).toEqual(holdingZod);
    expect(holdingZod.length).toBeGreaterThan(0);
    expect(holdingZod.length).toBeLessThan(entries.length);
  });

  it("move for every function when esbuild's options change", () => {
    const settings = hashSettings(scratch);
    const rehashed = assetHashes(after.metafile, entries, {
      ...settings,
      esbuild: { ...settings.esbuild, options: { ...(settings.esbuild.options as object), minify: false } },
    });
    expect(moved(after.hashes, rehashed)).toEqual(entries);
  });
});
