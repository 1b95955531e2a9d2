import type { Transport } from '../http/transport.ts';
import { MARKETPLACE_BASE } from '../http/url.ts';
import type { DataList } from '../types/common.ts';
import type { CategoryCount } from '../types/marketplace.ts';
import type { CallOptions } from './call-options.ts';

/** `/v1/marketplace/categories`. */
export class Categories {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  /** Every category with the number of public templates in it. */
  async list(options: CallOptions = {}): Promise<DataList<CategoryCount>> {
    return this.http.body<DataList<CategoryCount>>({
      method: 'GET',
      path: `${MARKETPLACE_BASE}/categories`,
      signal: options.signal,
    });
  }
}
