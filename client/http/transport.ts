import { ApiError, ConnectionError } from '../errors.ts';
import { errorFromResponse } from './error-from-response.ts';
import { IDEMPOTENCY_HEADER, isRepeatable, isRetryable, retryDelayMs } from './retry-policy.ts';
import { sleep } from './sleep.ts';
import { type QueryValue, queryString } from './url.ts';

export interface TransportConfig {
  apiKey: string;
  /** The service root, from `serviceRoot()`. */
  root: string;
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** From the service root, base path included: `/v1/marketplace/templates`. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Default `application/json`. */
  accept?: string;
}

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  /** undefined for an empty body (204). */
  body: T;
}

/** The deadline of one attempt; `release()` once the part it guards (headers, or the whole body) has arrived. */
function attemptDeadline(timeoutMs: number, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`No response within ${timeoutMs} ms.`, 'TimeoutError')),
    timeoutMs,
  );
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  return { signal, release: () => clearTimeout(timer), timedOut: () => controller.signal.aborted };
}

function parseJson(text: string, response: Response): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError({
      status: response.status,
      code: 'invalid_response',
      message: `HTTP ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
  }
}

/** Sends requests with the key, a per-attempt deadline, and retries where they are safe. */
export class Transport {
  // A plain field, not a parameter property: Node's type stripping runs only erasable syntax.
  private readonly config: TransportConfig;

  constructor(config: TransportConfig) {
    this.config = config;
  }

  /** A JSON request; throws ApiError on an error status and ConnectionError when no answer came. */
  async json<T>(spec: RequestSpec): Promise<JsonResponse<T>> {
    return this.send(spec, async (response) => {
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: parseJson(text, response) as T };
    });
  }

  /** Just the parsed body of a JSON request. */
  async body<T>(spec: RequestSpec): Promise<T> {
    return (await this.json<T>(spec)).body;
  }

  /**
   * The response with its body unread, for streams: the deadline covers only the wait for the
   * headers, after which the body may flow for as long as the caller reads it.
   */
  async open(spec: RequestSpec): Promise<Response> {
    return this.send(spec, async (response) => response, { deadlineCoversBody: false });
  }

  private async send<R>(
    spec: RequestSpec,
    read: (response: Response) => Promise<R>,
    options = { deadlineCoversBody: true },
  ): Promise<R> {
    // Every request that changes something (every method but GET) carries an Idempotency-Key, the
    // same on each attempt, so the service answers a repeat with the first answer instead of
    // acting twice: they are all retried like GETs, PATCH too.
    const keyed = spec.method !== 'GET';
    if (keyed && !Object.keys(spec.headers ?? {}).some((h) => h.toLowerCase() === IDEMPOTENCY_HEADER)) {
      spec = { ...spec, headers: { ...spec.headers, [IDEMPOTENCY_HEADER]: crypto.randomUUID() } };
    }
    const repeatable = isRepeatable(spec.method, keyed);
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = repeatable && attempt < this.config.maxRetries;
      const deadline = attemptDeadline(this.config.timeoutMs, spec.signal);
      let failure: unknown;
      let retryAfter: string | null = null;
      try {
        const response = await this.config.fetch(this.urlOf(spec), this.initOf(spec, deadline.signal));
        if (!options.deadlineCoversBody) deadline.release();
        if (response.ok) return await read(response);
        failure = await errorFromResponse(response);
        if (!retriesLeft || !isRetryable(failure)) throw failure;
        retryAfter = response.headers.get('retry-after');
      } catch (err) {
        // The service answered; whether to try again was decided above.
        if (err instanceof ApiError) throw err;
        // The caller's own abort ends everything at once, with the caller's reason.
        if (spec.signal?.aborted) throw spec.signal.reason;
        failure = deadline.timedOut()
          ? new ConnectionError(
              `No response from ${spec.method} ${spec.path} within ${this.config.timeoutMs} ms.`,
              true,
              { cause: err },
            )
          : new ConnectionError(
              `${spec.method} ${spec.path} failed: ${err instanceof Error ? err.message : String(err)}`,
              false,
              { cause: err },
            );
        if (!retriesLeft) throw failure;
      } finally {
        deadline.release();
      }
      const wait = retryDelayMs(attempt + 1, retryAfter);
      if (wait === undefined) throw failure;
      await sleep(wait, spec.signal);
    }
  }

  private urlOf(spec: RequestSpec): string {
    return `${this.config.root}${spec.path}${queryString(spec.query)}`;
  }

  private initOf(spec: RequestSpec, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = {
      accept: spec.accept ?? 'application/json',
      authorization: `Bearer ${this.config.apiKey}`,
      ...spec.headers,
    };
    const init: RequestInit = { method: spec.method, headers, signal, redirect: 'error' };
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(spec.body);
    }
    return init;
  }
}
