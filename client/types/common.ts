/** Shapes shared by every resource: list envelopes and the error body. */

import type { Pagination } from './openapi.ts';

/** Offset-and-cursor pagination of the marketplace lists: the document's own type, generated from it. */
export type { Pagination };

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
