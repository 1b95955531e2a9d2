/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) carried from a request into the events
 * it causes and on into every delivery attempt of them (docs/webhooks.md, "Trace context"). The
 * HTTP stack runs each route inside `traceScope` with the request's `traceparent`/`tracestate`, or
 * with a trace it starts when the request has none (`started`); the outbox stores it on each event
 * row, the relay on each delivery record, and each attempt sends a `traceparent` of that trace with
 * a span id of its own. This is propagation only: X-Ray sampling is left as it is.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** What an event keeps of the request that caused it. */
export interface TraceContext {
  /** The causing request's `traceparent`, or the one the service started for it. */
  traceparent: string;
  tracestate?: string;
  /** The request carried none: the service started this trace. */
  started?: true;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** The spec's limit on what a vendor must propagate (32 list members of up to 256 characters, 512 in all). */
const MAX_TRACESTATE_LENGTH = 512;
const TRACESTATE = /^[\x20-\x7e]*$/;

export const traceScope = new AsyncLocalStorage<TraceContext>();

/** The trace of the code running now (the route's request), if any. */
export const currentTrace = (): TraceContext | undefined => traceScope.getStore();

const zeros = (hex: string) => /^0+$/.test(hex);

/** `{traceId, parentId, flags}` of a valid `traceparent` (version 00, or a later one read as 00), else undefined. */
export function parseTraceparent(
  value: string | undefined,
): { traceId: string; parentId: string; flags: string } | undefined {
  const m = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, rest] = m as unknown as [string, string, string, string, string, string?];
  // Version ff is invalid; version 00 has nothing after the flags; a later version may add fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (zeros(traceId) || zeros(parentId)) return undefined;
  return { traceId, parentId, flags };
}

export const newSpanId = (): string => randomBytes(8).toString('hex');

/** The trace a request continues (its own headers, when valid) or one the service starts for it. */
export function traceOfRequest(headers: Record<string, string | undefined>): TraceContext {
  const parent = parseTraceparent(headers['traceparent']);
  if (!parent) return { traceparent: `00-${randomBytes(16).toString('hex')}-${newSpanId()}-01`, started: true };
  const state = headers['tracestate']?.trim();
  // A tracestate is only meaningful with the traceparent it came with, and kept only within the spec's bounds.
  const keep = state && state.length <= MAX_TRACESTATE_LENGTH && TRACESTATE.test(state) ? { tracestate: state } : {};
  return { traceparent: `00-${parent.traceId}-${parent.parentId}-${parent.flags}`, ...keep };
}

/** The `traceparent` of one delivery attempt: the causing trace, a new span id, the caller's flags. */
export function attemptTraceparent(trace: TraceContext): string {
  const parsed = parseTraceparent(trace.traceparent)!;
  return `00-${parsed.traceId}-${newSpanId()}-${parsed.flags}`;
}

/** The headers an outgoing request of the trace carries. */
export function traceHeaders(trace: TraceContext | undefined): Record<string, string> {
  if (!trace || !parseTraceparent(trace.traceparent)) return {};
  return { traceparent: attemptTraceparent(trace), ...(trace.tracestate ? { tracestate: trace.tracestate } : {}) };
}
