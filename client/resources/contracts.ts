import type { Transport } from '../http/transport.ts';
import { AGENTS_BASE, path } from '../http/url.ts';
import { paginate } from '../pagination.ts';
import type { CursorPage } from '../types/common.ts';
import type {
  Contract,
  CreateContractInput,
  ListContractsParams,
  RecordVerificationInput,
} from '../types/contracts.ts';
import type { CallOptions } from './call-options.ts';

/** `/api/v1/contracts`: create a contract from a template and move it through its states. */
export class Contracts {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  /** Instantiates a template into a contract (also `templates.instantiate`). Not retried: a repeat would create a second contract. */
  async create(input: CreateContractInput, options: CallOptions = {}): Promise<Contract> {
    return this.post(`/contracts`, input, options);
  }

  /** One page of the caller's contracts (as buyer or seller), newest first. */
  async list(params: ListContractsParams = {}, options: CallOptions = {}): Promise<CursorPage<Contract>> {
    return this.http.body<CursorPage<Contract>>({
      method: 'GET',
      path: `${AGENTS_BASE}/contracts`,
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Every contract of the caller, newest first, a page at a time. */
  iterate(
    params: Omit<ListContractsParams, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Contract, void, undefined> {
    return paginate(async (cursor) => {
      const page = await this.list({ ...params, cursor }, options);
      return { items: page.data, nextCursor: page.next_cursor };
    });
  }

  async get(id: string, options: CallOptions = {}): Promise<Contract> {
    return this.http.body<Contract>({
      method: 'GET',
      path: AGENTS_BASE + path`/contracts/${id}`,
      signal: options.signal,
    });
  }

  /** CREATED → FUNDED; emits `contract.funded`. */
  async fund(id: string, options: CallOptions = {}): Promise<Contract> {
    return this.post(path`/contracts/${id}/fund`, undefined, options);
  }

  /** FUNDED → VERIFIED or VERIFICATION_FAILED; emits `contract.verification.completed`. */
  async recordVerification(id: string, input: RecordVerificationInput, options: CallOptions = {}): Promise<Contract> {
    return this.post(path`/contracts/${id}/verification`, input, options);
  }

  /** FUNDED or VERIFIED → RELEASED; emits `contract.released`. */
  async release(id: string, options: CallOptions = {}): Promise<Contract> {
    return this.post(path`/contracts/${id}/release`, undefined, options);
  }

  /** FUNDED or VERIFICATION_FAILED → REFUNDED; emits `contract.refunded`. */
  async refund(id: string, options: CallOptions = {}): Promise<Contract> {
    return this.post(path`/contracts/${id}/refund`, undefined, options);
  }

  private async post(relativePath: string, body: unknown, options: CallOptions): Promise<Contract> {
    return this.http.body<Contract>({ method: 'POST', path: AGENTS_BASE + relativePath, body, signal: options.signal });
  }
}
