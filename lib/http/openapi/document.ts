/**
 * The OpenAPI 3.1 document, built from the route table (paths, methods, keys), the handlers' zod
 * specs (parameters and bodies), lib/http/openapi/schemas.ts (answers) and each row's `doc` (lib/route-docs.ts)
 * (summary, description, success statuses with their answer schema's name, route-specific errors).
 * local/openapi-document.ts writes it to generated/openapi.json (a build artifact, not committed),
 * which GET /openapi.json serves; the client's types and docs/operations.md are made from it too.
 *
 * JSON Schema comes from zod's own `z.toJSONSchema` (draft 2020-12, which OpenAPI 3.1 uses), so
 * nothing here depends on how a schema was built (zod or zod/mini).
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ErrorCode } from '../../core/errors.ts';
import { InvariantError } from '../../core/errors.ts';
import { type DocumentedRoute, documentedRoutes, type RouteDoc } from '../../route-docs.ts';
import { QUERY_INTEGERS } from '../../zod.ts';
import { ERROR_STATUS } from '../errors.ts';
import { takesIdempotencyKey } from '../idempotent-methods.ts';
import type { RouteSpecOf } from '../middleware.ts';
import * as S from './schemas.ts';
import { componentRegistry, contractEvents } from './schemas.ts';

type Json = Record<string, unknown>;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SCHEMAS = '#/components/schemas/';
const ref = (name: string) => ({ $ref: `${SCHEMAS}${name}` });

/** The errors every route can answer, by status, and which routes they apply to. */
const COMMON_ERRORS: {
  status: number;
  name: string;
  codes: readonly ErrorCode[] | readonly string[];
  applies: (r: DocumentedRoute, s: RouteSpecOf) => boolean;
  description: string;
}[] = [
  {
    status: 400,
    name: 'BadRequest',
    codes: ['validation_error', 'invalid_json'],
    applies: () => true,
    description: 'The request is not valid: `details` lists every problem with its path.',
  },
  {
    status: 401,
    name: 'Unauthorized',
    codes: ['unauthorized'],
    applies: (r) => r.auth,
    description: 'No API key, or an unknown one.',
  },
  {
    status: 404,
    name: 'NotFound',
    codes: ['not_found'],
    applies: (_r, s) => s.params !== undefined,
    description: "Not found, or not the caller's (never 403 for someone else's resource).",
  },
  {
    status: 413,
    name: 'PayloadTooLarge',
    codes: ['payload_too_large'],
    applies: () => true,
    description: 'The body is over 256 KiB.',
  },
  {
    status: 415,
    name: 'UnsupportedMediaType',
    codes: ['unsupported_media_type'],
    applies: () => true,
    description: 'A body that is not `application/json`.',
  },
  {
    status: 429,
    name: 'TooManyRequests',
    codes: ['rate_limited'],
    applies: () => true,
    description:
      'Too many requests, or too much contention on one item. Retry after the number of seconds in `Retry-After`.',
  },
  {
    status: 500,
    name: 'InternalError',
    codes: ['internal_error'],
    applies: () => true,
    description: 'Something failed on the service side; the message never carries internal details.',
  },
];

export function jsonSchemaOf(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      // A query integer is text on the wire; the document shows the integer it is (lib/zod.ts).
      const range = QUERY_INTEGERS.get(zodSchema);
      if (!range) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
      Object.assign(jsonSchema, { type: 'integer', ...range });
    },
  }) as Json;
  return componentRefs(rest);
}

/**
 * A recursive schema (the filter grammar) comes out of zod with its named parts in `$defs`; in an
 * OpenAPI document `#/$defs/…` would point at the document's root, so each becomes a `$ref` to the
 * component of that name (schemas.ts names them). An unnamed one is a mistake of ours, said at build time.
 */
function componentRefs(schema: Json): Json {
  const { $defs, ...rest } = schema as Json & { $defs?: Record<string, Json> };
  if (!$defs) return schema;
  for (const name of Object.keys($defs))
    if (!componentRegistry.has(S.recursiveComponents.get(name) as z.core.$ZodType))
      throw new InvariantError(
        `jsonSchemaOf: ${name} is a $defs entry that is no named component (lib/http/openapi/schemas.ts)`,
      );
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', `"${SCHEMAS}`)) as Json;
}

function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(componentRegistry, {
    io: 'output',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `${SCHEMAS}${id}`,
  }) as { schemas: Record<string, Json> };
  const out: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, id: _id, ...rest } = schema;
    out[name] = rest;
  }
  for (const type of Object.keys(contractEvents) as (keyof typeof contractEvents)[]) {
    out[eventComponentName(type)] = jsonSchemaOf(contractEvents[type], 'output');
  }
  return out;
}

const eventComponentName = (type: string) =>
  `${type
    .split('.')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`;

/** A JSON object schema's properties as OpenAPI parameters, each with its value in `example` if it has one. */
function parametersOf(
  schema: z.core.$ZodType | undefined,
  where: 'path' | 'query',
  example: Readonly<Record<string, string>> = {},
): Json[] {
  if (!schema) return [];
  const json = jsonSchemaOf(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    const value = example[name];
    return {
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: propertySchema,
      ...(value === undefined ? {} : { example: parameterValue(propertySchema, value) }),
    };
  });
}

/** A parameter's text as the value its schema shows: `limit: 10`, not `"10"` (lib/zod.ts, queryInteger). */
const parameterValue = (schema: Json, text: string): unknown =>
  schema['type'] === 'integer' || schema['type'] === 'number' ? Number(text) : text;

/**
 * The row's example request, held to the handler's own shapes: an example the route would refuse
 * (a renamed field, a parameter it lacks) fails `npm run openapi` instead of showing in the document.
 * Read as `npm start` reads it (the document's first server), in development mode: the webhook
 * example is the local runtime's http://localhost receiver.
 */
function checkExample(route: DocumentedRoute, spec: RouteSpecOf): void {
  const mode = process.env['DEVELOPMENT_MODE'];
  process.env['DEVELOPMENT_MODE'] = 'true';
  try {
    checkExampleParts(route, spec);
  } finally {
    if (mode === undefined) delete process.env['DEVELOPMENT_MODE'];
    else process.env['DEVELOPMENT_MODE'] = mode;
  }
}

function checkExampleParts(route: DocumentedRoute, spec: RouteSpecOf): void {
  const example = route.doc.example ?? {};
  const parts: Array<[string, z.core.$ZodType | undefined, unknown]> = [
    ['params', spec.params, example.params],
    ['query', spec.query, example.query],
    ['body', spec.body, example.body],
  ];
  for (const [part, schema, value] of parts) {
    if (value === undefined) continue;
    if (!schema) throw new InvariantError(`${route.name}: its example has ${part}, and the route takes none`);
    const result = z.safeParse(schema, value);
    if (!result.success)
      throw new InvariantError(`${route.name}: its example's ${part} does not fit the route: ${result.error.message}`);
  }
}

const TAGS: Record<RouteDoc['tag'], string> = {
  Health: 'Service status and this document; no key needed.',
  Marketplace: 'Templates: browse, search, publish, version, feature, install and review.',
  'Agents and webhooks': 'Agents and their webhook: URL, event kinds, secret and the verification handshake.',
  'Events and deliveries': 'Contract events of an agent: polling feed, server-sent events and webhook deliveries.',
  Contracts: 'Contracts made from a template; each move emits an event to the party agents.',
};

async function specOf(route: DocumentedRoute): Promise<RouteSpecOf> {
  const mod = (await import(pathToFileURL(resolve(root, route.handler)).href)) as {
    handler: { routeSpec?: RouteSpecOf };
  };
  if (!mod.handler.routeSpec) throw new InvariantError(`${route.handler} was not made with httpRoute or sseRoute`);
  return mod.handler.routeSpec;
}

const errorResponse = (description: string) => ({
  description,
  headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
  content: { 'application/json': { schema: ref('Error') } },
});

/**
 * OpenAPI 3.1 has no schema for the frames of a stream; `x-sse-data` names the schema of each
 * frame's `data` (the test suite holds every streamed frame to it).
 */
const SSE_BODY = {
  type: 'string',
  description:
    'Server-sent events. Each event has `id` (the event id), `event` (its type) and one `data` line: the event as JSON. A frame of only `id:` marks a start point (`since=`) to resume from; lines starting with `:` are heartbeats.',
  'x-sse-data': ref('FeedEvent'),
};

function operationOf(route: DocumentedRoute, spec: RouteSpecOf): Json {
  const { doc } = route;
  const responses: Record<string, unknown> = {};
  for (const [status, success] of Object.entries(doc.answers)) {
    const headers: Record<string, unknown> = {
      'x-request-id': { $ref: '#/components/headers/RequestId' },
      traceresponse: { $ref: '#/components/headers/TraceResponse' },
      'x-service-trace': { $ref: '#/components/headers/ServiceTrace' },
    };
    for (const h of success.headers ?? []) headers[h] = { $ref: `#/components/headers/${h}` };
    if (takesIdempotencyKey(route.method))
      headers['Idempotency-Replayed'] = { $ref: '#/components/headers/IdempotencyReplayed' };
    const media = route.streaming ? 'text/event-stream' : 'application/json';
    const schema =
      route.name === 'openApiDocument'
        ? { type: 'object' }
        : route.streaming
          ? SSE_BODY
          : success.schema
            ? ref(componentNamed(success.schema, route))
            : undefined;
    responses[status] = {
      description: success.description,
      headers,
      ...(schema ? { content: { [media]: { schema } } } : {}),
    };
  }
  for (const common of COMMON_ERRORS) {
    if (common.applies(route, spec))
      responses[String(common.status)] = { $ref: `#/components/responses/${common.name}` };
  }
  const specific = [
    ...(doc.errors ?? []),
    ...(takesIdempotencyKey(route.method) ? (['idempotency_key_in_use', 'idempotency_key_reused'] as const) : []),
  ];
  for (const status of [...new Set(specific.map((c) => ERROR_STATUS[c]!))].sort()) {
    const codes = specific.filter((c) => ERROR_STATUS[c] === status);
    responses[String(status)] = errorResponse(`Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`);
  }
  checkExample(route, spec);
  const parameters = [
    ...parametersOf(spec.params, 'path', doc.example?.params),
    ...parametersOf(spec.query, 'query', doc.example?.query),
    ...(takesIdempotencyKey(route.method) ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(route.streaming ? [{ $ref: '#/components/parameters/LastEventId' }] : []),
  ];
  return {
    operationId: route.name,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    security: route.auth ? [{ apiKey: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: !isOptional(spec.body),
            content: {
              'application/json': {
                schema: jsonSchemaOf(spec.body, 'input'),
                ...(doc.example?.body === undefined ? {} : { example: doc.example.body }),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** A body schema made with `z.optional`: the route also takes no body at all. */
const isOptional = (schema: z.core.$ZodType): boolean =>
  (schema as { _zod: { optin?: string } })._zod.optin === 'optional';

/** The component names of lib/http/openapi/schemas.ts, each a `named()` schema. */
const componentNames = (): Set<string> =>
  new Set(
    Object.values(S).flatMap((v) => {
      const meta =
        typeof v === 'object' && v !== null && '_zod' in v ? componentRegistry.get(v as z.core.$ZodType) : undefined;
      return meta ? [meta.id] : [];
    }),
  );

function componentNamed(name: string, route: DocumentedRoute): string {
  if (!componentNames().has(name))
    throw new InvariantError(
      `${route.name}: answer schema ${name} is not a named component of lib/http/openapi/schemas.ts`,
    );
  return name;
}

const webhookHeaders = (eventHeader: string): Json[] => [
  { name: 'X-Service-Event', in: 'header', required: true, schema: { type: 'string', const: eventHeader } },
  ...(eventHeader === 'service.webhook.verify'
    ? []
    : [
        {
          name: 'x-service-event-id',
          in: 'header',
          required: true,
          description: "The event id (also the body's `id`).",
          schema: { type: 'string' },
        },
      ]),
  {
    name: 'x-service-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds when the request was signed.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'x-service-signature',
    in: 'header',
    required: true,
    description:
      'Lowercase hex HMAC-SHA-256 of `<x-service-timestamp>.<raw body>`, keyed with the whole secret string (`whsec_…`).',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the event id (`verify_<uuid>` for the handshake).',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the same seconds as `x-service-timestamp`.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the base64-decoded part of the secret after `whsec_`.',
    schema: { type: 'string', pattern: '^v1,' },
  },
];

function webhooks(): Json {
  const out: Json = {
    'service.webhook.verify': {
      post: {
        operationId: 'webhookVerificationChallenge',
        summary: 'The verification handshake, sent to the endpoint by POST /api/v1/agents/{id}/webhook/verify',
        security: [{ webhookSignature: [] }],
        parameters: webhookHeaders('service.webhook.verify'),
        requestBody: { required: true, content: { 'application/json': { schema: ref('VerificationChallenge') } } },
        responses: {
          '200': {
            description: 'Within 10 seconds, `application/json`, echoing the token byte for byte.',
            content: { 'application/json': { schema: ref('ChallengeReply') } },
          },
        },
      },
    },
  };
  // What POST …/webhook/test sends: a receiver gets it like any delivery, whatever kinds it subscribes to.
  out['service.webhook.test'] = {
    post: {
      operationId: 'webhookTest',
      summary: 'A service.webhook.test event, sent by POST /api/v1/agents/{id}/webhook/test to the ENABLED webhook',
      description:
        'Signed and retried like a contract event; `data` is empty. Answer it like any delivery (2XX), or ignore the kind.',
      security: [{ webhookSignature: [] }],
      parameters: webhookHeaders('service.webhook.test'),
      requestBody: { required: true, content: { 'application/json': { schema: ref('TestEvent') } } },
      responses: { '2XX': { description: 'Received. Any other answer is retried.' } },
    },
  };
  for (const type of Object.keys(contractEvents)) {
    out[type] = {
      post: {
        operationId: `webhook${eventComponentName(type).replace(/Event$/, '')}`,
        summary: `A ${type} event, delivered to the agent's webhook URL`,
        description:
          'Retried on a non-2xx answer, a timeout (10 s) or a network error, with growing waits; the same event id can arrive more than once, so receivers deduplicate by `webhook-id`.',
        security: [{ webhookSignature: [] }],
        parameters: webhookHeaders(type),
        requestBody: { required: true, content: { 'application/json': { schema: ref(eventComponentName(type)) } } },
        responses: { '2XX': { description: 'Received. Any other answer is retried.' } },
      },
    };
  }
  return out;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The document as a file: what generated/openapi.json holds and GET /openapi.json serves. */
export const serializeDocument = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

/**
 * Imports every handler to read its request shapes: the caller provides Lambda's `awslambda`
 * global first (local/lambda/streaming.ts), which the streaming handler is made with.
 */
export async function buildOpenApiDocument(table: readonly DocumentedRoute[] = documentedRoutes): Promise<Json> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of table) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationOf(route, await specOf(route));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Template marketplace API',
      version: packageVersion(),
      description:
        'Templates (browse, publish, install, review), agents with signed webhooks, and contracts whose life produces events. ' +
        'Errors are `{"error": {"code", "message", "details"?}}`. Every POST, PUT, PATCH and DELETE takes an optional `Idempotency-Key`. ' +
        'See docs/api.md for the contract in words.',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [
      {
        url: 'http://localhost:{port}',
        description: '`npm start` (PORT, default 3000)',
        variables: { port: { default: '3000', description: 'The PORT npm start was given.' } },
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
        description:
          'A deployed stage: its `ApiUrl` stack output (a stage with a custom domain serves the same paths there).',
        variables: {
          apiId: { default: 'your-api-id', description: 'The REST API id in the `ApiUrl` output.' },
          region: { default: 'us-east-1', description: 'The region the stage is deployed to.' },
          stage: {
            default: 'prod',
            enum: ['prod', 'staging', 'dev'],
            description: 'The stage (infra/stage-config.ts).',
          },
        },
      },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: '`Authorization: Bearer <API_KEY>`; keys are issued by `npm run admin` and stored hashed.',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'Requests the service sends to a webhook are signed with the webhook secret: `x-service-signature` and the Standard Webhooks `webhook-signature` (see the headers of each webhook). `verifyWebhook` of the client package checks them.',
        },
      },
      schemas: componentSchemas(),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Any 1–255 printable ASCII characters, unique per request (a UUID). The first answer is kept for 24 hours and replayed for the same route, ids and body; another request under the same key is 422 `idempotency_key_reused`.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
        LastEventId: {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          description: 'Resume after this event id (what `EventSource` sends on reconnect).',
          schema: { type: 'string' },
        },
      },
      headers: {
        RequestId: {
          description: 'The request id, also in the service logs.',
          required: true,
          schema: { type: 'string' },
        },
        TraceResponse: {
          description:
            'The W3C trace the request\'s events carry (docs/webhooks.md, "Trace context"): the request\'s own `traceparent` when it sent a valid one, else one the service started. Every delivery of those events sends a `traceparent` of this trace id.',
          required: false,
          schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
        },
        ServiceTrace: {
          description:
            "`continued`: the trace is the request's own `traceparent`; `started`: the request had none (or an invalid one) and the service started one.",
          required: false,
          schema: { type: 'string', enum: ['continued', 'started'] },
        },
        Location: { description: 'The URL path of the created resource.', required: true, schema: { type: 'string' } },
        ETag: {
          description: 'The entity tag of the answer: send it as `If-None-Match` to get 304 while it is unchanged.',
          required: true,
          schema: { type: 'string' },
        },
        'Cache-Control': {
          description: 'How long clients and shared caches may keep the answer (`public, max-age=<seconds>`).',
          required: true,
          schema: { type: 'string' },
        },
        IdempotencyReplayed: {
          description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.',
          schema: { type: 'string', const: 'true' },
        },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^\\d+$' } },
      },
      responses: Object.fromEntries(
        COMMON_ERRORS.map((e) => [
          e.name,
          {
            ...errorResponse(`${e.description} Error codes: ${e.codes.map((c) => `\`${c}\``).join(', ')}.`),
            ...(e.status === 429
              ? {
                  headers: {
                    'x-request-id': { $ref: '#/components/headers/RequestId' },
                    'Retry-After': { $ref: '#/components/headers/RetryAfter' },
                  },
                }
              : {}),
          },
        ]),
      ),
    },
  };
}
