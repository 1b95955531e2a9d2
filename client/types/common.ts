/** Shapes shared by every resource: list envelopes and the error body. */

/** Offset-and-cursor pagination of the marketplace lists. */
export interface Pagination {
  limit: number;
  offset: number;
  /**
   * Matches in all. Exact for every list and every one-word search; for a multi-word search not read
   * to its end it is an upper bound (the count of its rarest word) and `total_exact` is false.
   */
  total: number;
  /** Present (false) only when `total` is a bound rather than the exact count. */
  total_exact?: false;
  has_more: boolean;
  /** Pass as `cursor` to read the next page; null on the last page. */
  next_cursor: string | null;
}

/** A marketplace list page: `GET /templates`, `GET /templates/:id/reviews`. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** A cursor-only list page: agent events and deliveries. */
export interface CursorPage<T> {
  data: T[];
  next_cursor: string | null;
}

/** A list that is returned whole. */
export interface DataList<T> {
  data: T[];
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The service's error body: `{"error": {code, message, details?}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
}
