import type { Transport } from '../http/transport.ts';
import { MARKETPLACE_BASE, path } from '../http/url.ts';
import { paginate } from '../pagination.ts';
import type { CursorPage } from '../types/common.ts';
import type { Contract, InstantiateTemplateInput } from '../types/contracts.ts';
import type {
  ChangeVersionInput,
  CompareVersionsParams,
  EventAgents,
  FeaturedTemplates,
  Installation,
  InstalledTemplate,
  InstallInput,
  InstallResult,
  ListInstalledParams,
  ListTemplatesParams,
  PublishTemplateInput,
  PublishVersionInput,
  SetEventAgentsInput,
  Template,
  TemplateDetails,
  TemplatePage,
  TemplateStatsParams,
  TemplateStatsSeries,
  TemplateSummary,
  UpdateTemplateInput,
  Upgraded,
  UpgradeInput,
  VersionChanged,
  VersionDiff,
} from '../types/marketplace.ts';
import type { CallOptions } from './call-options.ts';
import type { Contracts } from './contracts.ts';

const m = (relativePath: string) => MARKETPLACE_BASE + relativePath;

/** `/v1/marketplace/templates`: browse, publish, install and feature templates. */
export class Templates {
  private readonly http: Transport;
  private readonly contracts: Contracts;

  constructor(http: Transport, contracts: Contracts) {
    this.http = http;
    this.contracts = contracts;
  }

  /** One page of public templates. */
  async list(params: ListTemplatesParams = {}, options: CallOptions = {}): Promise<TemplatePage> {
    return this.http.body<TemplatePage>({
      method: 'GET',
      path: m('/templates'),
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Every matching public template, a page at a time (following `next_cursor`). */
  iterate(
    params: Omit<ListTemplatesParams, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<TemplateSummary, void, undefined> {
    // Later pages are addressed by the cursor alone; an offset would only apply to the first.
    const { offset: _firstPageOnly, ...rest } = params;
    return paginate(async (cursor) => {
      const page = await this.list(cursor ? { ...rest, cursor } : params, options);
      return { items: page.data, nextCursor: page.pagination.next_cursor };
    });
  }

  /** The featured, trending, new and top-rated lists. */
  async featured(options: CallOptions = {}): Promise<FeaturedTemplates> {
    return this.http.body<FeaturedTemplates>({ method: 'GET', path: m('/templates/featured'), signal: options.signal });
  }

  /** A template in full, with versions and its newest reviews; by id or by slug. */
  async get(idOrSlug: string, options: CallOptions = {}): Promise<TemplateDetails> {
    return this.http.body<TemplateDetails>({
      method: 'GET',
      path: m(path`/templates/${idOrSlug}`),
      signal: options.signal,
    });
  }

  /** Publishes a new template; 409 `slug_taken` if the slug is in use. */
  async publish(input: PublishTemplateInput, options: CallOptions = {}): Promise<Template> {
    return this.http.body<Template>({ method: 'POST', path: m('/templates'), body: input, signal: options.signal });
  }

  /** Author only. */
  async update(id: string, input: UpdateTemplateInput, options: CallOptions = {}): Promise<Template> {
    return this.http.body<Template>({
      method: 'PATCH',
      path: m(path`/templates/${id}`),
      body: input,
      signal: options.signal,
    });
  }

  /** Author only; the version must be greater than the current one. */
  async publishVersion(id: string, input: PublishVersionInput, options: CallOptions = {}): Promise<Template> {
    return this.http.body<Template>({
      method: 'POST',
      path: m(path`/templates/${id}/versions`),
      body: input,
      signal: options.signal,
    });
  }

  /** Author only: deprecate a version (a message, or null to take it back) or yank it (or take the yank back). */
  async changeVersion(
    id: string,
    version: string,
    input: ChangeVersionInput,
    options: CallOptions = {},
  ): Promise<VersionChanged> {
    return this.http.body<VersionChanged>({
      method: 'PATCH',
      path: m(path`/templates/${id}/versions/${version}`),
      body: input,
      signal: options.signal,
    });
  }

  /** Author only: installs, contracts, reviews and rating per UTC day and version. */
  async stats(id: string, params: TemplateStatsParams, options: CallOptions = {}): Promise<TemplateStatsSeries> {
    return this.http.body<TemplateStatsSeries>({
      method: 'GET',
      path: m(path`/templates/${id}/stats`),
      query: { ...params },
      signal: options.signal,
    });
  }

  /** The workspace's agents that receive template.version.* events of its installed templates. */
  async eventAgents(options: CallOptions = {}): Promise<EventAgents> {
    return this.http.body<EventAgents>({ method: 'GET', path: m('/installed/agents'), signal: options.signal });
  }

  /** Replaces the workspace's agents that receive template events ([] for none). */
  async setEventAgents(input: SetEventAgentsInput, options: CallOptions = {}): Promise<EventAgents> {
    return this.http.body<EventAgents>({
      method: 'PUT',
      path: m('/installed/agents'),
      body: input,
      signal: options.signal,
    });
  }

  /**
   * Installs into the caller's workspace. Idempotent by API contract (a repeat answers 200 and
   * counts nothing), so unlike other POSTs it is retried on 429, 5xx and network errors.
   */
  async install(id: string, input: InstallInput = {}, options: CallOptions = {}): Promise<InstallResult> {
    const res = await this.http.json<Installation>({
      method: 'POST',
      path: m(path`/templates/${id}/install`),
      ...(Object.keys(input).length > 0 ? { body: input } : {}),
      signal: options.signal,
    });
    return { ...res.body, created: res.status === 201 };
  }

  /**
   * Moves the workspace's install to `input.version`, or to the newest version its policy (or
   * `input.policy`) allows; the answer's `diff` is from the version it left.
   */
  async upgrade(id: string, input: UpgradeInput = {}, options: CallOptions = {}): Promise<Upgraded> {
    return this.http.body<Upgraded>({
      method: 'POST',
      path: m(path`/installed/${id}/upgrade`),
      body: input,
      signal: options.signal,
    });
  }

  /** The computed schema diff between two versions (`to` defaults to the current) and the changelogs between. */
  async compare(id: string, params: CompareVersionsParams, options: CallOptions = {}): Promise<VersionDiff> {
    return this.http.body<VersionDiff>({
      method: 'GET',
      path: m(path`/templates/${id}/compare`),
      query: { ...params },
      signal: options.signal,
    });
  }

  /** One page of the templates installed in the caller's workspace, newest install first, with their drift. */
  async installed(params: ListInstalledParams = {}, options: CallOptions = {}): Promise<CursorPage<InstalledTemplate>> {
    return this.http.body<CursorPage<InstalledTemplate>>({
      method: 'GET',
      path: m('/installed'),
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Every template installed in the caller's workspace, a page at a time. */
  iterateInstalled(
    params: Omit<ListInstalledParams, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<InstalledTemplate, void, undefined> {
    const { offset: _firstPageOnly, ...rest } = params;
    return paginate(async (cursor) => {
      const page = await this.installed(cursor ? { ...rest, cursor } : params, options);
      return { items: page.data, nextCursor: page.next_cursor };
    });
  }

  /** Operators only (403 otherwise). */
  async feature(id: string, options: CallOptions = {}): Promise<void> {
    await this.http.body<undefined>({
      method: 'PUT',
      path: m(path`/templates/${id}/featured`),
      signal: options.signal,
    });
  }

  /** Operators only (403 otherwise). */
  async unfeature(id: string, options: CallOptions = {}): Promise<void> {
    await this.http.body<undefined>({
      method: 'DELETE',
      path: m(path`/templates/${id}/featured`),
      signal: options.signal,
    });
  }

  /** Creates a contract from this template: `contracts.create({template_id, …})`. */
  async instantiate(templateId: string, input: InstantiateTemplateInput, options: CallOptions = {}): Promise<Contract> {
    return this.contracts.create({ ...input, template_id: templateId }, options);
  }
}
