import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The AWS SDK moves as one (CONTRIBUTING.md, "Updating the AWS SDK"): the clients the functions
 * bundle are pinned to one release, the lockfile holds one copy of every @aws-sdk and @smithy package
 * (so every client, bundled or test-only, runs on the same core, signer and retry code), and a package
 * only tests or scripts use is a devDependency, never shipped in a bundle's dependencies.
 */
const root = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string }>;
};
const isSdk = (name: string) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the AWS SDK as one', () => {
  it('bundles its clients at one release, each pinned exactly', () => {
    const clients = Object.entries(manifest.dependencies).filter(
      ([name]) => name.startsWith('@aws-sdk/client-') || name === '@aws-sdk/lib-dynamodb',
    );
    expect(clients.length).toBeGreaterThan(0);
    expect(new Set(clients.map(([, version]) => version)).size, JSON.stringify(clients)).toBe(1);
    for (const [name, version] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }))
      if (isSdk(name)) expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('has one copy of each @aws-sdk and @smithy package in the lockfile', () => {
    const versions = new Map<string, Set<string>>();
    for (const [path, info] of Object.entries(lock.packages)) {
      const name = path.split('node_modules/').pop()!;
      if (!isSdk(name) || !info.version) continue;
      versions.set(name, (versions.get(name) ?? new Set()).add(info.version));
    }
    const twice = [...versions].filter(([, v]) => v.size > 1).map(([name, v]) => `${name}: ${[...v].join(', ')}`);
    expect(twice).toEqual([]);
  });

  it('ships no package that only tests or scripts import', () => {
    const shipped = [...sourceFiles(join(root, 'lib')), ...sourceFiles(join(root, 'functions'))]
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const unused = Object.keys(manifest.dependencies).filter(
      (name) => !shipped.includes(`from '${name}'`) && !shipped.includes(`from '${name}/`),
    );
    expect(unused).toEqual([]);
  });
});
