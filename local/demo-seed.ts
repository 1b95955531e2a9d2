/**
 * The demo key is kept in DATA_DIR (local development only) because the store keeps only its
 * hash; with DATA_DIR=:memory: a new one is made at every start.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createUserWithKey, findCallerByApiKey } from '../lib/accounts/api-keys.ts';
import type { Caller } from '../lib/core/caller.ts';
import { routes } from '../lib/routes.ts';
import { demoTemplates } from './demo-templates.ts';
import { invokeRoute, proxyEvent } from './proxy-event.ts';

async function demoCaller(dataDir: string | undefined): Promise<{ caller: Caller; apiKey: string }> {
  const file = dataDir ? join(dataDir, 'demo-api-key.json') : undefined;
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { api_key: string };
    const caller = await findCallerByApiKey(saved.api_key);
    if (caller) return { caller, apiKey: saved.api_key };
  }
  const issued = await createUserWithKey({ name: 'Demo Publisher', verified: true, operator: true });
  if (file) {
    mkdirSync(dataDir!, { recursive: true });
    writeFileSync(file, JSON.stringify(issued), { mode: 0o600 });
  }
  const caller = await findCallerByApiKey(issued.api_key);
  return { caller: caller!, apiKey: issued.api_key };
}

/** Calls a route through its real handler, as API Gateway would after the authorizer. */
function callRoute(name: string, caller: Caller, init: { params?: Record<string, string>; body?: unknown }) {
  const route = routes.find((r) => r.name === name)!;
  const event = proxyEvent({
    route,
    caller,
    pathParameters: init.params ?? null,
    headers: init.body ? { 'content-type': 'application/json' } : {},
    body: init.body ? JSON.stringify(init.body) : null,
  });
  return invokeRoute(route, event);
}

/** Demo user and templates, made once: a template already there (by slug) is left alone. */
export async function seedDemoData(options: { dataDir: string | undefined }): Promise<{ apiKey: string }> {
  const { caller, apiKey } = await demoCaller(options.dataDir);
  for (const template of demoTemplates) {
    const existing = await callRoute('getTemplate', caller, { params: { id: template.slug } });
    if (existing.statusCode === 200) continue;
    const published = await callRoute('publishTemplate', caller, { body: template });
    if (published.statusCode !== 201 && published.statusCode !== 409) {
      throw new Error(`seeding ${template.slug} failed: ${published.statusCode} ${published.body}`);
    }
  }
  return { apiKey };
}
