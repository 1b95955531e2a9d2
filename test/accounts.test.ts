import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as authorize } from '../functions/authorizer.ts';
import { findCallerByApiKey, hashApiKey } from '../lib/accounts/api-keys.ts';
import { db, tableName } from '../lib/store/client.ts';
import * as keys from '../lib/store/key-builders.ts';
import { runAdmin } from '../scripts/admin-command.ts';

const root = join(import.meta.dirname, '..');
const run = promisify(execFile);

/**
 * An admin command, run in this process against this file's table (a `tsx` child per call cost
 * the file 25 s of CPU): resolves to its stdout, or rejects with its exit code and stderr, as the
 * command line would. The last describe runs the command line itself.
 */
async function admin(...args: string[]): Promise<{ stdout: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  if (code !== 0) throw Object.assign(new Error(`admin ${args.join(' ')} exited ${code}`), { code, stderr });
  return { stdout };
}

describe('admin create-key', () => {
  it('prints one JSON line whose key works, and stores only its hash', async () => {
    const { stdout } = await admin('create-key', '--name', 'Alice', '--verified', '--operator');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0]!) as { user_id: string; workspace_id: string; key_id: string; api_key: string };
    expect(Object.keys(issued).sort()).toEqual(['api_key', 'key_id', 'user_id', 'workspace_id']);
    expect(issued.key_id).toBe(`key_${hashApiKey(issued.api_key).slice(0, 20)}`);
    expect(issued.user_id).toMatch(/^[0-9a-f-]{36}$/);

    const caller = await findCallerByApiKey(issued.api_key);
    expect(caller).toEqual({
      userId: issued.user_id,
      workspaceId: issued.workspace_id,
      name: 'Alice',
      verified: true,
      operator: true,
      usageKey: hashApiKey(issued.api_key),
    });

    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.apiKey(hashApiKey(issued.api_key)) }),
    );
    expect(Item).toBeDefined();
    expect(JSON.stringify(Item)).not.toContain(issued.api_key);
  });

  it('defaults to an unverified non-operator', async () => {
    const { stdout } = await admin('create-key', '--name', 'Bob');
    const caller = await findCallerByApiKey((JSON.parse(stdout) as { api_key: string }).api_key);
    expect(caller).toMatchObject({ name: 'Bob', verified: false, operator: false });
  });

  it('refuses a call without a name or with an unknown command, with usage and exit 1', async () => {
    for (const args of [
      ['create-key'],
      ['create-key', '--name', '  '],
      ['delete-key', '--name', 'x'],
      ['create-key', '--name', 'x', '--admin'],
      ['revoke-key'],
      ['revoke-key', 'mk_secret'],
      ['redrive', 'nowhere'],
    ]) {
      const failed = await admin(...args).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failed?.code, args.join(' ')).toBe(1);
      expect(failed?.stderr).toContain('usage:');
    }
  });
});

describe('authorizer', () => {
  const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/v1/marketplace/templates';

  it('maps a key to its user and allows every route of the stage (the answer is cached per key)', async () => {
    const { stdout } = await admin('create-key', '--name', 'Carol');
    const issued = JSON.parse(stdout) as { api_key: string; user_id: string; workspace_id: string };
    const result = await authorize({ type: 'TOKEN', authorizationToken: `Bearer ${issued.api_key}`, methodArn });
    expect(result.principalId).toBe(issued.user_id);
    expect(result.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        // Every route of the stage (a portal token's Allow lists its routes instead: test/portal/).
        Resource: ['arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*'],
      },
    ]);
    expect(result.context).toEqual({
      userId: issued.user_id,
      workspaceId: issued.workspace_id,
      name: 'Carol',
      verified: false,
      operator: false,
      // Handed on to the routes, so a portal link this key makes counts against its usage plan.
      usageKey: hashApiKey(issued.api_key),
    });
    // The usage plan's key for this caller: the stored hash, never the key itself.
    expect(result.usageIdentifierKey).toBe(hashApiKey(issued.api_key));
    expect(result.usageIdentifierKey).not.toContain(issued.api_key);
  });

  it('answers Unauthorized for a missing, malformed or unknown key', async () => {
    for (const token of ['', 'Bearer', 'Bearer mk_unknown', 'Basic dXNlcjpwYXNz', `Bearer mk_${'a'.repeat(300)}`]) {
      await expect(authorize({ type: 'TOKEN', authorizationToken: token, methodArn })).rejects.toThrow('Unauthorized');
    }
  });
});

describe('admin list-keys and revoke-key', () => {
  const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/v1/marketplace/templates';
  const issue = async (name: string) =>
    JSON.parse((await admin('create-key', '--name', name)).stdout) as {
      api_key: string;
      user_id: string;
      key_id: string;
    };
  const lines = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const allowed = (apiKey: string) =>
    authorize({ type: 'TOKEN', authorizationToken: `Bearer ${apiKey}`, methodArn }).then(
      () => true,
      () => false,
    );

  it('lists keys by id with their user, never the key or its hash', async () => {
    const dora = await issue('Dora');
    const listed = lines((await admin('list-keys')).stdout);
    const mine = listed.find((k) => k['key_id'] === dora.key_id);
    expect(mine).toEqual({
      key_id: dora.key_id,
      user_id: dora.user_id,
      name: 'Dora',
      verified: false,
      operator: false,
      created_at: expect.any(String),
      revoked_at: null,
    });
    const text = JSON.stringify(listed);
    expect(text).not.toContain(dora.api_key);
    expect(text).not.toContain(hashApiKey(dora.api_key));
    expect(lines((await admin('list-keys', '--user', dora.user_id)).stdout).map((k) => k['key_id'])).toEqual([
      dora.key_id,
    ]);
  });

  it('refuses a revoked key at the very next authorizer call, and only that key', async () => {
    const erin = await issue('Erin');
    const frank = await issue('Frank');
    expect(await allowed(erin.api_key)).toBe(true);
    const revoked = lines((await admin('revoke-key', erin.key_id)).stdout);
    expect(revoked).toEqual([expect.objectContaining({ key_id: erin.key_id, revoked_at: expect.any(String) })]);
    expect(await allowed(erin.api_key)).toBe(false);
    expect(await findCallerByApiKey(erin.api_key)).toBeUndefined();
    expect(await allowed(frank.api_key)).toBe(true);
    const listed = lines((await admin('list-keys', '--user', erin.user_id)).stdout);
    expect(listed[0]!['revoked_at']).toBe(revoked[0]!['revoked_at']);
    // Revoking again keeps the first time.
    expect(lines((await admin('revoke-key', erin.key_id)).stdout)[0]!['revoked_at']).toBe(revoked[0]!['revoked_at']);
  });

  it('revokes every key of a user by user id', async () => {
    const gail = await issue('Gail');
    const revoked = lines((await admin('revoke-key', gail.user_id)).stdout);
    expect(revoked.map((k) => k['key_id'])).toEqual([gail.key_id]);
    expect(await allowed(gail.api_key)).toBe(false);
  });

  it('fails with exit 1 for an unknown user or key', async () => {
    for (const target of ['00000000-0000-4000-8000-000000000000', `key_${'0'.repeat(20)}`]) {
      const failed = await admin('revoke-key', target).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failed?.code, target).toBe(1);
      expect(failed?.stderr).toMatch(/^No (user|key) /);
    }
  });
});

describe('npm run admin', () => {
  const cli = (...args: string[]) =>
    run(process.execPath, [join(root, 'scripts/admin.ts'), ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });

  it('is the same commands on the command line: JSON lines on stdout and exit 0, or the reason on stderr and exit 1', async () => {
    const { stdout } = await cli('create-key', '--name', 'Ivan');
    const issued = JSON.parse(stdout) as { api_key: string; user_id: string };
    expect(await findCallerByApiKey(issued.api_key)).toMatchObject({ userId: issued.user_id, name: 'Ivan' });
    const failed = await cli('revoke-key', 'mk_secret').then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toContain('usage:');
  });
});
