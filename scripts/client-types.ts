/**
 * `npm run client-types`: writes client/types/openapi.ts, the TypeScript of every schema in
 * the OpenAPI document's components (generated/openapi.json, written first from the route table:
 * local/openapi-document.ts), and of every operation's request body (`<OperationId>Body`) and
 * query (`<OperationId>Query`). The client's own type names, answers and inputs alike, are aliases
 * of these (client/types/*.ts; test/client/types.test.ts fails a shape written there by hand that
 * it does not list, and fails when this file is stale).
 * Covers the JSON Schema the document uses: objects, arrays, records, enums, consts, nullables,
 * `$ref`s.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPENAPI_PATH, writeOpenApiDocument } from '../local/openapi-document.ts';

/** A node of the OpenAPI document (the document, an operation, a schema), read key by key as JSON. */
// biome-ignore lint/suspicious/noExplicitAny: untyped parsed JSON walked through optional keys of many shapes (schemas, operations, parameters); a typed model would only move the same unchecked reads into casts
type Schema = Record<string, any>;

export const CLIENT_TYPES_PATH = fileURLToPath(new URL('../client/types/openapi.ts', import.meta.url));

const quote = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));

function typeOf(schema: Schema, indent: string): string {
  if (schema['$ref']) return String(schema['$ref']).split('/').at(-1)!;
  if ('const' in schema) return JSON.stringify(schema['const']);
  if (schema['enum']) return (schema['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  const union = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (union) return union.map((s) => typeOf(s, indent)).join(' | ');
  const types = Array.isArray(schema['type'])
    ? (schema['type'] as string[])
    : schema['type']
      ? [schema['type'] as string]
      : [];
  if (types.length === 0) return 'unknown';
  return types.map((t) => single(t, schema, indent)).join(' | ');
}

function single(type: string, schema: Schema, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema['items'] ?? {}, indent)}>`;
    case 'object': {
      const properties = Object.entries((schema['properties'] ?? {}) as Record<string, Schema>);
      // `additionalProperties: false` with no properties: the empty object (`data: {}` of the test event).
      if (properties.length === 0)
        return schema['additionalProperties'] === false
          ? 'Record<string, never>'
          : `Record<string, ${typeOf(schema['additionalProperties'] ?? {}, indent)}>`;
      const required = new Set((schema['required'] ?? []) as string[]);
      const inner = `${indent}  `;
      const lines = properties.map(([key, value]) => {
        const doc = value['description'] ? `${inner}/** ${value['description']} */\n` : '';
        return `${doc}${inner}${quote(key)}${required.has(key) ? '' : '?'}: ${typeOf(value, inner)};`;
      });
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default:
      throw new Error(`client-types: no TypeScript for JSON Schema type ${type}`);
  }
}

const DIGITS = /^\^\\d/;

/** A query value that must be decimal digits is a number in the client, which sends its text. */
function queryType(schema: Schema): string {
  return schema['type'] === 'string' && DIGITS.test(String(schema['pattern'] ?? '')) ? 'number' : typeOf(schema, '  ');
}

function operationTypes(document: Schema): string[] {
  const out: string[] = [];
  for (const [path, operations] of Object.entries(document['paths'] as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const id = operation['operationId'] as string | undefined;
      if (!id) continue;
      const name = id[0]!.toUpperCase() + id.slice(1);
      const body = operation['requestBody']?.['content']?.['application/json']?.['schema'] as Schema | undefined;
      if (body)
        out.push(
          `/** The body of ${method.toUpperCase()} ${path}. */\nexport type ${name}Body = ${typeOf(body, '')};\n`,
        );
      const query = ((operation['parameters'] ?? []) as Schema[]).filter((p) => p['in'] === 'query');
      if (query.length > 0) {
        const fields = query.map(
          (p) => `  ${quote(p['name'])}${p['required'] ? '' : '?'}: ${queryType(p['schema'] ?? {})};`,
        );
        out.push(
          `/** The query of ${method.toUpperCase()} ${path}. */\nexport type ${name}Query = {\n${fields.join('\n')}\n};\n`,
        );
      }
    }
  }
  return out;
}

export function clientTypes(document: Schema): string {
  const schemas = document['components']['schemas'] as Record<string, Schema>;
  const out = Object.entries(schemas).map(([name, schema]) => {
    const doc = schema['description'] ? `/** ${schema['description']} */\n` : '';
    return `${doc}export type ${name} = ${typeOf(schema, '')};\n`;
  });
  out.push(...operationTypes(document));
  return `// Generated by \`npm run client-types\` from the OpenAPI document (local/openapi-document.ts). Do not edit.\n\n${out.join('\n')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CLIENT_TYPES_PATH, clientTypes(JSON.parse(await writeOpenApiDocument()) as Schema));
  console.log(`wrote ${OPENAPI_PATH}`);
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
}
