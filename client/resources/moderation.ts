import type { Transport } from '../http/transport.ts';
import { MARKETPLACE_BASE } from '../http/url.ts';
import type { CursorPage } from '../types/common.ts';
import type {
  CreateReportInput,
  ListModerationParams,
  ModerateInput,
  ModerationAction,
  Report,
} from '../types/marketplace.ts';
import type { CallOptions } from './call-options.ts';

/** `/v1/marketplace/reports` and `/v1/marketplace/moderation/actions`: reports by anyone, moderation by operators. */
export class Moderation {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  /** Reports a template or a review; 409 `report_exists` while your earlier report of it is open, 429 past the limit. */
  async report(input: CreateReportInput, options: CallOptions = {}): Promise<Report> {
    return this.http.body<Report>({
      method: 'POST',
      path: `${MARKETPLACE_BASE}/reports`,
      body: input,
      signal: options.signal,
    });
  }

  /** Operators only: one page of open reports, newest first. */
  async openReports(params: ListModerationParams = {}, options: CallOptions = {}): Promise<CursorPage<Report>> {
    return this.http.body<CursorPage<Report>>({
      method: 'GET',
      path: `${MARKETPLACE_BASE}/reports`,
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Operators only: hide, restore, dismiss, verify_author or unverify_author; recorded in the audit trail. */
  async act(input: ModerateInput, options: CallOptions = {}): Promise<ModerationAction> {
    return this.http.body<ModerationAction>({
      method: 'POST',
      path: `${MARKETPLACE_BASE}/moderation/actions`,
      body: input,
      signal: options.signal,
    });
  }

  /** Operators only: one page of the audit trail, newest first. */
  async actions(params: ListModerationParams = {}, options: CallOptions = {}): Promise<CursorPage<ModerationAction>> {
    return this.http.body<CursorPage<ModerationAction>>({
      method: 'GET',
      path: `${MARKETPLACE_BASE}/moderation/actions`,
      query: { ...params },
      signal: options.signal,
    });
  }
}
