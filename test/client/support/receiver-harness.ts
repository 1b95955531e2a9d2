import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { createReceiver, type ReceiverOptions } from '../../../examples/webhook-receiver/receiver.ts';
import { signatureHeaders } from '../../../lib/webhooks/signature.ts';

/** Starts the sample receiver on 127.0.0.1 with a free port, closed after the file's tests. */
export async function startReceiver(options: ReceiverOptions): Promise<string> {
  const server = createReceiver(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface SignedPostOptions {
  secret: string | readonly string[];
  /** When the request claims to be signed; default now. */
  signedAt?: Date;
  headers?: Record<string, string>;
  /** Send this body instead of the one that was signed. */
  tamperedBody?: string;
}

/** POSTs `body` signed the way the service signs deliveries (the service's own signer). */
export async function signedPost(
  url: string,
  body: string,
  options: SignedPostOptions,
): Promise<{ status: number; contentType: string | null; text: string; json: any }> {
  const signature = signatureHeaders(options.secret, body, messageIdOf(body), options.signedAt);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signature, ...options.headers },
    body: options.tamperedBody ?? body,
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
    json: text ? JSON.parse(text) : undefined,
  };
}

/** The id a delivery of this body would carry in `webhook-id`: the event's id when it has one. */
function messageIdOf(body: string): string {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    if (typeof id === 'string') return id;
  } catch {
    // not JSON: the receiver refuses it anyway
  }
  return 'msg_test';
}
