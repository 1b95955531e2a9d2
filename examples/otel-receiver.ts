/**
 * A webhook receiver whose OpenTelemetry tracer joins the trace of the request that caused each
 * event (docs/webhooks.md, "Trace context"): every delivery carries a W3C `traceparent` whose trace
 * id is the causing request's, so the receiver's span is a child of the delivery attempt, in that
 * trace. Uses @opentelemetry/api, @opentelemetry/core (the W3C propagator) and
 * @opentelemetry/sdk-trace-base; point its exporter at your collector instead of the console.
 *
 *   PORT=8080 node examples/otel-receiver.ts
 *
 * (Signature checks are left out to keep to the trace: see examples/webhook-receiver.)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

const propagator = new W3CTraceContextPropagator();

export async function startTracedReceiver(
  exporter: SpanExporter,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('webhook-receiver');
  const server = http.createServer((req, res) => {
    // The delivery's traceparent (and tracestate) become the parent of this request's span.
    const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    const span = tracer.startSpan('webhook receive', { kind: SpanKind.SERVER }, parent);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        id?: string;
        challenge?: string;
      };
      span.setAttributes({ 'webhook.event_type': event.type, ...(event.id ? { 'webhook.event_id': event.id } : {}) });
      res.writeHead(200, { 'content-type': 'application/json' });
      // The handshake is answered by echoing its challenge (docs/webhooks.md).
      res.end(JSON.stringify(event.type === 'service.webhook.verify' ? { challenge: event.challenge } : { ok: true }));
      span.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await provider.shutdown();
    },
  };
}

if (import.meta.main) {
  const receiver = await startTracedReceiver(new ConsoleSpanExporter(), Number(process.env['PORT'] ?? 8080));
  console.log(`listening on ${receiver.url}`);
}
