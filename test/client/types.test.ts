import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as Client from '../../client/index.ts';
import type * as OpenApi from '../../client/types/openapi.ts';
import { currentOpenApiDocument } from '../../local/openapi-document.ts';
import { CLIENT_TYPES_PATH, clientTypes } from '../../scripts/client-types.ts';
import { sourceFiles, type Token, tokenize, tokensOf } from '../architecture/source-files.ts';

/**
 * The client's types are generated, not written: client/types/openapi.ts is what `npm run openapi`
 * writes from the OpenAPI document (which the route table and the service's own zod schemas make), and every other
 * type the client exports is an alias of it under the client's name (`PublishTemplateInput =
 * OpenApiTypes.PublishTemplateBody`). So a field added to a handler's schema or an answer reaches the
 * client with `npm run openapi`, and there is no second copy to hold equal. The few shapes the
 * document has no name for are listed below with why; the generic pages are held to the document.
 */

/** Shapes written in client/types by hand, each for a reason the document cannot serve. */
const CLIENT_ONLY: Record<string, string> = {
  Page: 'a generic envelope of the offset lists (held equal to the generated pages below)',
  CursorPage: 'a generic envelope of the cursor lists (held equal to the generated pages below)',
  DataList: 'a generic envelope of the whole lists (held equal to the generated one below)',
  ErrorBody:
    'looser than the document on purpose: `code: string`, so a code added later does not break a compiled client',
  ErrorDetail: "one detail of ErrorBody's",
  InstallResult: 'the client adds `created` (201 or 200), which is a status, not a field',
  StreamEventsOptions: 'options of the client’s SSE reader (reconnect, signal), not of the API',
  SubscribeOptions: 'options of the client’s push (WebSocket) reader (after, signal): the channel is no REST operation',
  StreamedEvent: 'one parsed server-sent event: SSE framing, which OpenAPI cannot describe',
};

/** Exported types of a client/types file declared by hand: interfaces, and aliases of an object or literal. */
function handWritten(tokens: Token[]): string[] {
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (t.text !== 'export') return;
    const [kind, name] = [tokens[i + 1], tokens[i + 2]];
    if (kind?.text === 'interface' && name) out.push(name.text);
    if (kind?.text !== 'type' || !name || name.text === '*') return;
    let j = i + 3;
    while (j < tokens.length && tokens[j]!.text !== '=') j++;
    const first = tokens[j + 1];
    if (first && (first.text === '{' || first.kind === 'string')) out.push(name.text);
  });
  return out;
}

describe('client types and the OpenAPI document', () => {
  it('client/types/openapi.ts is what `npm run openapi` writes from the document the route table makes now', async () => {
    // Built here, not read from generated/openapi.json: that build artifact may be missing or stale.
    const document = await currentOpenApiDocument();
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8'), 'run `npm run openapi`').toBe(clientTypes(document));
  });

  it('declares no shape by hand besides the listed ones: every other client type is a generated one', () => {
    const planted = tokenize(
      "export type A = OpenApiTypes.A;\nexport type B = { x: string };\nexport type C = 'c' | 'd';\nexport interface D { y: number }\nexport type E = OpenApiTypes.E['f'];\nexport type * from './x.ts';",
    );
    expect(handWritten(planted)).toEqual(['B', 'C', 'D']);
    const files = sourceFiles('client/types').filter((f) => f !== 'client/types/openapi.ts');
    const found = files.flatMap((f) => handWritten(tokensOf(f)));
    expect(found.sort()).toEqual(Object.keys(CLIENT_ONLY).sort());
  });

  it('holds the generic envelopes and the looser error body to the document', () => {
    expectTypeOf<Client.Page<Client.TemplateSummary>>().toEqualTypeOf<OpenApi.TemplatePage>();
    expectTypeOf<Client.Page<Client.Review>>().toEqualTypeOf<OpenApi.ReviewPage>();
    expectTypeOf<Client.DataList<Client.CategoryCount>>().toEqualTypeOf<OpenApi.CategoryList>();
    expectTypeOf<Client.CursorPage<Client.InstalledTemplate>>().toEqualTypeOf<OpenApi.InstalledPage>();
    expectTypeOf<Client.CursorPage<Client.Agent>>().toEqualTypeOf<OpenApi.AgentPage>();
    expectTypeOf<Client.CursorPage<Client.FeedEvent>>().toEqualTypeOf<OpenApi.EventPage>();
    expectTypeOf<Client.CursorPage<Client.Delivery>>().toEqualTypeOf<OpenApi.DeliveryPage>();
    expectTypeOf<Client.CursorPage<Client.Report>>().toEqualTypeOf<OpenApi.ReportPage>();
    expectTypeOf<Client.CursorPage<Client.ModerationAction>>().toEqualTypeOf<OpenApi.ModerationActionPage>();
    expectTypeOf<Client.CursorPage<Client.Contract>>().toEqualTypeOf<OpenApi.ContractPage>();
    expectTypeOf<OpenApi.Error>().toExtend<Client.ErrorBody>();
    // What one reads back can be sent again.
    expectTypeOf<OpenApi.TemplateSchema>().toExtend<Client.TemplateSchema>();
    // One query type serves both moderation lists.
    expectTypeOf<OpenApi.ListReportsQuery>().toEqualTypeOf<Client.ListModerationParams>();
  });
});
