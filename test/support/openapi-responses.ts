import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Route } from '../../lib/routes.ts';
import { OPENAPI_PATH } from '../../local/openapi-document.ts';

/**
 * Holds an answer of the API to generated/openapi.json: the status must be documented for the
 * operation, the body must match the documented schema (strict objects: an undocumented field
 * fails), the media type must be the documented one, and the headers the document requires
 * (x-request-id, Location) must be there. test/support/lambda.ts and local-api.ts run every answer
 * the tests receive through here. The document is the build artifact the integration tier's
 * globalSetup writes from the route table before any file runs (test/support/openapi-document.ts).
 */
type Json = Record<string, any>;

const DOC_ID = 'openapi.json';
const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema({ $id: DOC_ID, components: document['components'] });

const deref = (node: Json): Json => {
  if (typeof node?.['$ref'] !== 'string') return node;
  const path = (node['$ref'] as string).replace(/^#\//, '').split('/');
  return deref(path.reduce((at: Json, key) => at[key], document));
};

const validators = new Map<string, ReturnType<Ajv2020['compile']>>();
function validatorFor(schema: Json): ReturnType<Ajv2020['compile']> {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    // Component refs are relative to the document; resolve them against the schema registered above.
    validate = ajv.compile(JSON.parse(key.replaceAll('"#/components/', `"${DOC_ID}#/components/`)) as Json);
    validators.set(key, validate);
  }
  return validate;
}

export interface Answer {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The raw body text ('' when none). */
  body: string;
}

/** Problems with one answer of `route`; empty when it matches the document. */
export function openApiProblems(route: Route, answer: Answer): string[] {
  const operation = document['paths']?.[route.path]?.[route.method.toLowerCase()] as Json | undefined;
  const where = `${route.method} ${route.path} → ${answer.status}`;
  if (!operation) return [`${route.method} ${route.path} is not in generated/openapi.json`];
  const documented = operation['responses']?.[String(answer.status)] as Json | undefined;
  if (!documented)
    return [`${where}: status not documented (documented: ${Object.keys(operation['responses']).join(', ')})`];
  const response = deref(documented);
  const problems: string[] = [];
  for (const [name, header] of Object.entries((response['headers'] ?? {}) as Json)) {
    if (deref(header)['required'] && answer.headers[name.toLowerCase()] === undefined)
      problems.push(`${where}: header ${name} missing`);
  }
  const content = response['content'] as Json | undefined;
  if (!content) {
    if (answer.body !== '') problems.push(`${where}: a body where the document has none`);
    return problems;
  }
  const [mediaType, media] = Object.entries(content)[0]!;
  const sent = (answer.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (sent !== mediaType) problems.push(`${where}: content-type ${sent || '(none)'}, documented ${mediaType}`);
  if (mediaType === 'text/event-stream' && media['schema']?.['x-sse-data'])
    return [...problems, ...sseProblems(where, answer.body, media['schema']['x-sse-data'] as Json)];
  if (mediaType !== 'application/json' || !media['schema']) return problems;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [...problems, `${where}: body is not JSON`];
  }
  const validate = validatorFor(media['schema'] as Json);
  if (!validate(body)) {
    problems.push(
      `${where}: body does not match the document: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n${answer.body.slice(0, 500)}`,
    );
  }
  return problems;
}

/**
 * Every complete frame of a server-sent event stream: `id`, `event` and one `data` line whose JSON
 * matches `dataSchema`, with `event` its type and `id` its id. Comments (`:`), `retry:` and a frame of
 * only `id:` (a start point) pass; a frame cut off by the end of the stream is not judged.
 */
function sseProblems(where: string, body: string, dataSchema: Json): string[] {
  const problems: string[] = [];
  const validate = validatorFor(dataSchema);
  const frames = body.split('\n\n').slice(0, -1);
  for (const frame of frames) {
    const fields = new Map<string, string[]>();
    for (const line of frame.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields.set(name, [...(fields.get(name) ?? []), value]);
    }
    // Only `retry:` or only `id:` (a start point: sets the resume id, dispatches nothing).
    if ([...fields.keys()].every((name) => name === 'retry' || name === 'id')) continue;
    const [data, ...more] = fields.get('data') ?? [];
    let event: Json | undefined;
    try {
      event = data === undefined || more.length > 0 ? undefined : (JSON.parse(data) as Json);
    } catch {
      event = undefined;
    }
    if (!event) {
      problems.push(`${where}: a stream frame without one JSON data line: ${frame.slice(0, 200)}`);
      continue;
    }
    if (!validate(event))
      problems.push(
        `${where}: stream data does not match the document: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n${data!.slice(0, 500)}`,
      );
    if (fields.get('event')?.[0] !== event['type'] || fields.get('id')?.[0] !== event['id']) {
      problems.push(`${where}: a stream frame whose id/event are not its data's id/type: ${frame.slice(0, 200)}`);
    }
  }
  return problems;
}

/** Throws with every problem (for helpers that answer one call at a time). */
export function assertMatchesOpenApi(route: Route, answer: Answer): void {
  const problems = openApiProblems(route, answer);
  if (problems.length) throw new Error(`The answer does not match generated/openapi.json:\n${problems.join('\n')}`);
}
