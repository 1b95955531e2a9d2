import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as Client from '../../client/index.ts';
import type * as OpenApi from '../../client/types/openapi.ts';
import { CLIENT_TYPES_PATH, clientTypes } from '../../scripts/client-types.ts';

/**
 * The client's types against the OpenAPI document: client/types/openapi.ts is generated from
 * generated/openapi.json (stale = this test fails), and each answer type the client exports must be
 * exactly the generated one. The type assertions are checked by `npm run typecheck` (tsc reads
 * this file); vitest runs the staleness check.
 */
describe('client types and the OpenAPI document', () => {
  it('client/types/openapi.ts is what `npm run client-types` writes from generated/openapi.json', () => {
    const document = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8'));
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8'), 'run `npm run client-types`').toBe(clientTypes(document));
  });

  it('every answer type of the client is the document’s', () => {
    expectTypeOf<Client.Category>().toEqualTypeOf<OpenApi.Category>();
    expectTypeOf<Client.Visibility>().toEqualTypeOf<OpenApi.Visibility>();
    expectTypeOf<Client.Author>().toEqualTypeOf<OpenApi.Author>();
    expectTypeOf<Client.TemplateStats>().toEqualTypeOf<OpenApi.TemplateStats>();
    expectTypeOf<Client.PublishedSchema>().toEqualTypeOf<OpenApi.TemplateSchema>();
    // What one reads back can be sent again.
    expectTypeOf<OpenApi.TemplateSchema>().toExtend<Client.TemplateSchema>();
    expectTypeOf<Client.TemplateSummary>().toEqualTypeOf<OpenApi.TemplateSummary>();
    expectTypeOf<Client.TemplateVersion>().toEqualTypeOf<OpenApi.TemplateVersion>();
    expectTypeOf<Client.Template>().toEqualTypeOf<OpenApi.Template>();
    expectTypeOf<Client.TemplateDetails>().toEqualTypeOf<OpenApi.TemplateDetails>();
    expectTypeOf<Client.Review>().toEqualTypeOf<OpenApi.Review>();
    expectTypeOf<Client.FeaturedTemplates>().toEqualTypeOf<OpenApi.FeaturedTemplates>();
    expectTypeOf<Client.Page<Client.TemplateSummary>>().toEqualTypeOf<OpenApi.TemplatePage>();
    expectTypeOf<Client.Page<Client.Review>>().toEqualTypeOf<OpenApi.ReviewPage>();
    expectTypeOf<Client.DataList<Client.CategoryCount>>().toEqualTypeOf<OpenApi.CategoryList>();
    expectTypeOf<Client.Installation>().toEqualTypeOf<OpenApi.Installation>();
    expectTypeOf<Client.CursorPage<Client.TemplateSummary>>().toEqualTypeOf<OpenApi.InstalledPage>();
    expectTypeOf<Client.Agent>().toEqualTypeOf<OpenApi.Agent>();
    expectTypeOf<Client.ConfiguredAgent>().toEqualTypeOf<OpenApi.ConfiguredAgent>();
    expectTypeOf<Client.CursorPage<Client.Agent>>().toEqualTypeOf<OpenApi.AgentPage>();
    expectTypeOf<Client.WebhookSecret>().toEqualTypeOf<OpenApi.WebhookSecret>();
    expectTypeOf<Client.ContractEventType>().toEqualTypeOf<OpenApi.EventType>();
    expectTypeOf<Client.AgentEvent>().toEqualTypeOf<OpenApi.Event>();
    expectTypeOf<Client.CursorPage<Client.FeedEvent>>().toEqualTypeOf<OpenApi.EventPage>();
    expectTypeOf<Client.Delivery>().toEqualTypeOf<OpenApi.Delivery>();
    expectTypeOf<Client.DeliveryDetail>().toEqualTypeOf<OpenApi.DeliveryDetail>();
    expectTypeOf<Client.TestEventAccepted>().toEqualTypeOf<OpenApi.TestEventAccepted>();
    expectTypeOf<Client.EventTypeList>().toEqualTypeOf<OpenApi.EventTypeList>();
    expectTypeOf<Client.ReplayAccepted>().toEqualTypeOf<OpenApi.ReplayAccepted>();
    expectTypeOf<Client.CursorPage<Client.Delivery>>().toEqualTypeOf<OpenApi.DeliveryPage>();
    expectTypeOf<Client.ContractStatus>().toEqualTypeOf<OpenApi.ContractStatus>();
    expectTypeOf<Client.Contract>().toEqualTypeOf<OpenApi.Contract>();
    expectTypeOf<Client.VersionChanged>().toEqualTypeOf<OpenApi.VersionChanged>();
    expectTypeOf<Client.TemplateStatsSeries>().toEqualTypeOf<OpenApi.TemplateStatsSeries>();
    expectTypeOf<Client.EventAgents>().toEqualTypeOf<OpenApi.EventAgents>();
    expectTypeOf<Client.Report>().toEqualTypeOf<OpenApi.Report>();
    expectTypeOf<Client.CursorPage<Client.Report>>().toEqualTypeOf<OpenApi.ReportPage>();
    expectTypeOf<Client.ModerationAction>().toEqualTypeOf<OpenApi.ModerationAction>();
    expectTypeOf<Client.CursorPage<Client.ModerationAction>>().toEqualTypeOf<OpenApi.ModerationActionPage>();
    expectTypeOf<Client.ContractEvent>().toEqualTypeOf<OpenApi.ContractEvent>();
    expectTypeOf<Client.TemplateEvent>().toEqualTypeOf<OpenApi.TemplateEvent>();
    expectTypeOf<Client.CursorPage<Client.Contract>>().toEqualTypeOf<OpenApi.ContractPage>();
    // The client keeps `code: string`, so a code added later does not break a compiled client.
    expectTypeOf<OpenApi.Error>().toExtend<Client.ErrorBody>();
    expectTypeOf<Client.WebhookChallenge>().toEqualTypeOf<OpenApi.VerificationChallenge>();
  });

  it('every request body and query the client sends is the document’s', () => {
    expectTypeOf<Client.PublishTemplateInput>().toEqualTypeOf<OpenApi.PublishTemplateBody>();
    expectTypeOf<Client.UpdateTemplateInput>().toEqualTypeOf<OpenApi.UpdateTemplateBody>();
    expectTypeOf<Client.PublishVersionInput>().toEqualTypeOf<OpenApi.PublishVersionBody>();
    expectTypeOf<Client.CreateReviewInput>().toEqualTypeOf<OpenApi.CreateReviewBody>();
    expectTypeOf<Client.CreateAgentInput>().toEqualTypeOf<OpenApi.CreateAgentBody>();
    expectTypeOf<Client.ConfigureWebhookInput>().toEqualTypeOf<OpenApi.ConfigureWebhookBody>();
    expectTypeOf<Client.CreateContractInput>().toEqualTypeOf<OpenApi.CreateContractBody>();
    expectTypeOf<Client.RecordVerificationInput>().toEqualTypeOf<OpenApi.RecordVerificationBody>();
    expectTypeOf<Client.ListTemplatesParams>().toEqualTypeOf<OpenApi.ListTemplatesQuery>();
    expectTypeOf<Client.ListReviewsParams>().toEqualTypeOf<OpenApi.ListReviewsQuery>();
    expectTypeOf<Client.ListInstalledParams>().toEqualTypeOf<OpenApi.ListInstalledQuery>();
    expectTypeOf<Client.ListAgentsParams>().toEqualTypeOf<OpenApi.ListAgentsQuery>();
    expectTypeOf<Client.ListEventsParams>().toEqualTypeOf<OpenApi.ListAgentEventsQuery>();
    expectTypeOf<Client.ListDeliveriesParams>().toEqualTypeOf<OpenApi.ListDeliveriesQuery>();
    expectTypeOf<Client.RotateSecretInput>().toEqualTypeOf<OpenApi.RotateWebhookSecretBody>();
    expectTypeOf<Client.ListContractsParams>().toEqualTypeOf<OpenApi.ListContractsQuery>();
    expectTypeOf<Client.ReplayEventsInput>().toEqualTypeOf<OpenApi.ReplayEventsBody>();
    expectTypeOf<Client.CreateDestinationInput>().toEqualTypeOf<OpenApi.CreateDestinationBody>();
    expectTypeOf<Client.ChangeVersionInput>().toEqualTypeOf<OpenApi.ChangeVersionBody>();
    expectTypeOf<Client.TemplateStatsParams>().toEqualTypeOf<OpenApi.TemplateStatsQuery>();
    expectTypeOf<Client.SetEventAgentsInput>().toEqualTypeOf<OpenApi.SetEventAgentsBody>();
    expectTypeOf<Client.CreateReportInput>().toEqualTypeOf<OpenApi.CreateReportBody>();
    expectTypeOf<Client.ModerateInput>().toEqualTypeOf<OpenApi.ModerateBody>();
    expectTypeOf<Client.ListModerationParams>().toEqualTypeOf<OpenApi.ListReportsQuery>();
    expectTypeOf<Client.ListModerationParams>().toEqualTypeOf<OpenApi.ListModerationActionsQuery>();
  });
});
