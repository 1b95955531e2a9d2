/**
 * A function's asset hash from what its bundle is really built from: the files its entry imports,
 * directly or not (esbuild's metafile: the import graph, tree-shaken modules included), each of ours
 * by content and each package's by its locked version, plus esbuild's version and options and the
 * tsconfig esbuild reads. A change to one domain file moves the hashes of the functions that import
 * it and no other: only those are uploaded, updated and cold-started by a deploy.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Metafile } from 'esbuild';

/** package-lock.json's `packages`: each installed package's folder and its locked version. */
export type LockedPackages = Readonly<Record<string, { version?: string }>>;

export const lockedPackages = (root: string): LockedPackages =>
  (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: LockedPackages }).packages;

const NODE_MODULES = 'node_modules/';

/**
 * What a bundled file adds to a hash. A package file: its path inside the package and the
 * package's locked version (the lockfile pins what `npm ci` installs, so the bytes follow from
 * it); a file of ours: its path from the repository root and its content.
 */
function inputPart(root: string, path: string, locked: LockedPackages): string {
  const at = path.indexOf(NODE_MODULES);
  if (at >= 0) {
    // From the first node_modules/ on: the lockfile's key of the package folder, nested ones included.
    const inside = path.slice(at);
    const parts = inside.split('/');
    let folder = '';
    for (let i = 0; i < parts.length; i++) {
      if (parts[i] !== 'node_modules') continue;
      const name = parts[i + 1]?.startsWith('@') ? parts.slice(i + 1, i + 3) : parts.slice(i + 1, i + 2);
      folder = [...parts.slice(0, i + 1), ...name].join('/');
    }
    const version = locked[folder]?.version;
    if (!version) throw new Error(`${inside}: no locked version of ${folder} in package-lock.json`);
    return `${inside}@${version}`;
  }
  const file = resolve(root, path);
  const content = createHash('sha256').update(readFileSync(file)).digest('hex');
  return `${relative(root, file)}:${content}`;
}

/** Every input `entry` reaches through the metafile's import graph (paths as the metafile names them). */
export function importClosure(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    const input = metafile.inputs[path];
    if (!input) throw new Error(`${path} is not in the metafile's inputs`);
    seen.add(path);
    for (const imported of input.imports) if (!imported.external) queue.push(imported.path);
  }
  return [...seen].sort();
}

export interface HashSettings {
  /** The repository root, which the metafile's paths are relative to (esbuild's absWorkingDir). */
  root: string;
  /** The esbuild version and the options every function is bundled with, paths relative to `root`. */
  esbuild: { version: string; options: unknown };
  locked: LockedPackages;
}

/** The asset hash of each entry (paths relative to `root`, as the metafile names them). */
export function assetHashes(
  metafile: Metafile,
  entries: readonly string[],
  settings: HashSettings,
): Map<string, string> {
  const { root, locked } = settings;
  const common = createHash('sha256')
    .update(JSON.stringify(settings.esbuild))
    // esbuild reads the compiler options from it; not an input in the metafile.
    .update(readFileSync(join(root, 'tsconfig.json')))
    .digest('hex');
  const parts = new Map<string, string>();
  const partOf = (path: string): string => {
    let part = parts.get(path);
    if (part === undefined) {
      part = inputPart(root, path, locked);
      parts.set(path, part);
    }
    return part;
  };
  return new Map(
    entries.map((entry) => {
      const hash = createHash('sha256').update(common).update(`\0${entry}`);
      // Sorted by what they add, not by path: a checkout whose node_modules is elsewhere names them apart.
      for (const part of importClosure(metafile, entry).map(partOf).sort()) hash.update(`\0${part}`);
      return [entry, hash.digest('hex')];
    }),
  );
}
