import type { Transport } from '../http/transport.ts';
import { MARKETPLACE_BASE, path } from '../http/url.ts';
import { paginate } from '../pagination.ts';
import type { CreateReviewInput, ListReviewsParams, Review, ReviewPage } from '../types/marketplace.ts';
import type { CallOptions } from './call-options.ts';

/** `/v1/marketplace/templates/:id/reviews`: one review per user per template. */
export class Reviews {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  /** 409 `review_exists` on a second review by the same user; 403 on your own template. */
  async create(templateId: string, input: CreateReviewInput, options: CallOptions = {}): Promise<Review> {
    return this.http.body<Review>({
      method: 'POST',
      path: this.pathOf(templateId),
      body: input,
      signal: options.signal,
    });
  }

  /** One page, newest first. */
  async list(templateId: string, params: ListReviewsParams = {}, options: CallOptions = {}): Promise<ReviewPage> {
    return this.http.body<ReviewPage>({
      method: 'GET',
      path: this.pathOf(templateId),
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Every review, newest first, a page at a time. */
  iterate(
    templateId: string,
    params: Omit<ListReviewsParams, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Review, void, undefined> {
    return paginate(async (cursor) => {
      const page = await this.list(templateId, cursor ? { limit: params.limit, cursor } : params, options);
      return { items: page.data, nextCursor: page.pagination.next_cursor };
    });
  }

  private pathOf(templateId: string): string {
    return MARKETPLACE_BASE + path`/templates/${templateId}/reviews`;
  }
}
