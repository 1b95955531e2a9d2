import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const cache = new Map<string, Promise<unknown>>();

/** The `handler` export of a module named as in the route table (path from the repository root). */
export function loadHandler<T = (...args: never[]) => unknown>(modulePath: string): Promise<T> {
  let loaded = cache.get(modulePath);
  if (!loaded) {
    loaded = import(pathToFileURL(resolve(repoRoot, modulePath)).href).then((mod: { handler?: unknown }) => {
      if (typeof mod.handler !== 'function') throw new Error(`${modulePath} does not export a handler`);
      return mod.handler;
    });
    cache.set(modulePath, loaded);
  }
  return loaded as Promise<T>;
}
