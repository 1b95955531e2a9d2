/**
 * Opaque page cursors: base64url of the DynamoDB start key, the position of the next page, and
 * the scope (sort, filter, search) it was made for. A cursor used with another scope, or one that
 * was edited, is a 400 rather than a silently wrong page.
 */
import { validationError } from '../core/errors.ts';

export type StartKey = Record<string, string | number>;

interface CursorBody {
  s: string;
  k: StartKey;
  p: number;
  /** Matches the next page must still skip (a search page cut short before it reached its offset). */
  o?: number;
}

export function encodeCursor(scope: string, key: StartKey, position: number, owed = 0): string {
  const body: CursorBody = { s: scope, k: key, p: position, ...(owed > 0 ? { o: owed } : {}) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const invalid = (message: string) => validationError([{ path: 'cursor', message }], 'The query string is not valid.');

/** The DynamoDB type of each attribute of a start key: string, or number (the counter sort keys). */
export type KeyTypes = Readonly<Record<string, 'S' | 'N'>>;

/** DynamoDB's limit for a sort key value, in UTF-8 bytes (partition keys may take 2048). */
const MAX_KEY_BYTES = 1024;

const fitsType = (value: unknown, type: 'S' | 'N'): boolean =>
  type === 'S'
    ? typeof value === 'string' && value.length > 0 && Buffer.byteLength(value) <= MAX_KEY_BYTES
    : typeof value === 'number' && Number.isSafeInteger(value);

/**
 * `expected` names the start key's attributes with their types (an edited cursor must not reach
 * DynamoDB with a value of another type or size than the index holds); `fixed` pins those whose
 * value the query itself determines (its partition), so a cursor cannot steer a Query to another
 * partition. `maxOwed` bounds the matches a cursor may say are still to skip (0: a list whose
 * cursors never owe any); what is owed is part of the position, so never more than it (an edited
 * one gave a search a negative `total`).
 */
export function decodeCursor(
  cursor: string,
  scope: string,
  expected: KeyTypes,
  fixed: Record<string, string>,
  maxOwed = 0,
): { key: StartKey; position: number; owed: number } {
  let body: Partial<CursorBody>;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
  } catch {
    throw invalid('Not a cursor from this API.');
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.s !== 'string' ||
    typeof body.k !== 'object' ||
    body.k === null
  ) {
    throw invalid('Not a cursor from this API.');
  }
  if (body.s !== scope) throw invalid('This cursor belongs to another sort, filter or search; start again without it.');
  const key = body.k;
  const names = Object.keys(key).sort();
  const wellFormed =
    names.join() === Object.keys(expected).sort().join() &&
    Object.entries(key).every(([name, v]) => fitsType(v, expected[name]!)) &&
    Object.entries(fixed).every(([k, v]) => key[k] === v) &&
    Number.isSafeInteger(body.p) &&
    (body.p as number) >= 0 &&
    (body.o === undefined ||
      (Number.isSafeInteger(body.o) && body.o > 0 && body.o <= Math.min(maxOwed, body.p as number)));
  if (!wellFormed) throw invalid('Not a cursor from this API.');
  return { key, position: body.p as number, owed: body.o ?? 0 };
}
