import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { areaOf } from '../../infra/areas.ts';
import { buildOpenApiDocument } from '../../lib/http/openapi/document.ts';
import { documented, documentedRoutes } from '../../lib/route-docs.ts';
import { AGENTS_BASE, type Route, routes } from '../../lib/routes.ts';
import { routeSampleEvent, sampleFile } from '../../local/demo/sample-event.ts';
import { createLocalApi, listen } from '../../local/gateway/api-gateway.ts';
import { invokeRoute } from '../../local/gateway/proxy-event.ts';
import { installAwsLambdaGlobal } from '../../local/lambda/streaming.ts';
import { clientTypes } from '../../scripts/client-types.ts';
import { routesMarkdown } from '../../scripts/routes-doc.ts';
import { createTestUser } from '../support/lambda.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** CONTRIBUTING.md's table of the files a new route touches: each file with `by hand` or `generated`. */
function recipeTable(): Array<{ file: string; how: string }> {
  const text = readFileSync(new URL('../../CONTRIBUTING.md', import.meta.url), 'utf8');
  const table = text.slice(text.indexOf('<!-- ROUTE-RECIPE:BEGIN -->'), text.indexOf('<!-- ROUTE-RECIPE:END -->'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [file, how] = line.split(' | ');
      return { file: file!.slice(3, -1), how: how!.trim() };
    });
}

/**
 * CONTRIBUTING.md's "Add a route", done once for a route that exists only here, so the recipe
 * stays true: the row and its words and answers (lib/route-docs.ts) are all the route table, the
 * OpenAPI document and the local runtime need besides the handler. A step that stops being enough fails here.
 */
const echo: Route = {
  name: 'recipeEcho',
  method: 'GET',
  path: `${AGENTS_BASE}/agents/{id}/recipe-echo`,
  handler: 'test/recipe/echo-route.ts',
  auth: true,
  access: 'none',
};
/** Its words, as lib/route-docs.ts would hold them. */
const [documentedEcho] = documented([echo], {
  recipeEcho: {
    tag: 'Health',
    summary: 'A route added by the recipe (test only)',
    answers: { 200: { description: 'OK', schema: 'Health' } },
    example: { params: { id: 'abc' }, query: { word: 'hello' } },
  },
});
const table = [...routes, echo];
const documentedTable = [...documentedRoutes, documentedEcho!];

describe('add a route (CONTRIBUTING.md, "Recipes")', () => {
  it('is one row of the route table, in an area of the stacks', () => {
    expect(table.filter((r) => r.name === echo.name || r.path === echo.path)).toEqual([echo]);
    expect(areaOf(echo)).toBe('Agents');
  });

  it('is in the OpenAPI document with its words, answers, request shapes and shared errors', async () => {
    installAwsLambdaGlobal();
    const doc = (await buildOpenApiDocument(documentedTable)) as { paths: Record<string, Record<string, any>> };
    const operation = doc.paths[echo.path]!['get'];
    expect(operation).toMatchObject({
      operationId: 'recipeEcho',
      tags: ['Health'],
      summary: 'A route added by the recipe (test only)',
      security: [{ apiKey: [] }],
      parameters: [
        expect.objectContaining({ name: 'id', in: 'path', required: true, example: 'abc' }),
        expect.objectContaining({ name: 'word', in: 'query', required: false, example: 'hello' }),
      ],
    });
    expect(operation.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Health',
    });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '404', '429', '500']));
  });

  it('refuses a row whose answer names no schema of lib/http/openapi/schemas.ts', async () => {
    installAwsLambdaGlobal();
    const wrong = {
      ...documentedEcho!,
      doc: { ...documentedEcho!.doc, answers: { 200: { description: 'OK', schema: 'Nothing' } } },
    };
    await expect(buildOpenApiDocument([wrong])).rejects.toThrow('answer schema Nothing is not a named component');
  });

  it('refuses a row whose example the handler would refuse (npm run openapi fails)', async () => {
    installAwsLambdaGlobal();
    const wrong = { ...documentedEcho!, doc: { ...documentedEcho!.doc, example: { params: { id: 'NOT-OK' } } } };
    await expect(buildOpenApiDocument([wrong])).rejects.toThrow(
      "recipeEcho: its example's params does not fit the route",
    );
  });

  it('has a sample from its row that its handler answers 200, and no file in events/', async () => {
    installAwsLambdaGlobal();
    const result = await invokeRoute(echo, routeSampleEvent(documentedEcho!));
    expect(result.statusCode).toBe(200);
    expect(existsSync(sampleFile(echo.name))).toBe(false);
  });

  it('is served by the local runtime, behind the key like every keyed route', async () => {
    const api = await listen(createLocalApi(table), 0);
    try {
      const user = await createTestUser();
      const url = `${api.url}${AGENTS_BASE}/agents/abc/recipe-echo`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${user.apiKey}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      expect((await fetch(url)).status).toBe(401);
      expect(
        (
          await fetch(`${api.url}${AGENTS_BASE}/agents/NOT-OK/recipe-echo`, {
            headers: { authorization: `Bearer ${user.apiKey}` },
          })
        ).status,
      ).toBe(404);
    } finally {
      await api.close();
    }
  });

  it("touches the files of CONTRIBUTING's table: at most 5 by hand, and the generated ones are those that change", async () => {
    installAwsLambdaGlobal();
    const table_ = recipeTable();
    const byHand = table_.filter((r) => r.how === 'by hand').map((r) => r.file);
    expect(byHand).toEqual([
      'lib/routes.ts',
      'lib/route-docs.ts',
      'functions/<area>/<kebab-name>.ts',
      'lib/<domain>/…',
      'client/resources/<area>.ts',
    ]);
    expect(table_.filter((r) => r.how !== 'by hand' && r.how !== 'generated')).toEqual([]);
    // The goal of issue 23 was at most 6 files in all, for a route with its own domain work; its
    // words moved out of the row into lib/route-docs.ts (issue 38: no function bundles them), one more.
    expect(table_.length).toBeLessThanOrEqual(7);
    const [before, after] = [await buildOpenApiDocument(), await buildOpenApiDocument(documentedTable)];
    // What each command of the recipe writes into a committed file, without the route and with it
    // (the commands call these). The OpenAPI document itself is a build artifact, committed nowhere
    // (local/openapi-document.ts), so it is no file the route touches.
    const outputs: Record<string, [string, string]> = {
      'client/types/openapi.ts': [clientTypes(before), clientTypes(after)],
      'docs/operations.md': [routesMarkdown(routes), routesMarkdown(table)],
    };
    const changed = Object.keys(outputs).filter((file) => outputs[file]![0] !== outputs[file]![1]);
    // Nothing else: the route's sample is its row's (above), and docs/deployment.md's table is the
    // same with 50 more routes (infra/growth.test.ts, which synthesizes them anyway).
    expect(table_.filter((r) => r.how === 'generated').map((r) => r.file)).toEqual(changed);
    expect(changed).toEqual(Object.keys(outputs));
  });

  it('changes no committed OpenAPI document: generated/openapi.json is a build artifact, ignored by git', () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
    expect(git('ls-files', 'generated/')).not.toContain('generated/openapi.json');
    expect(git('check-ignore', 'generated/openapi.json').trim()).toBe('generated/openapi.json');
  });
});
