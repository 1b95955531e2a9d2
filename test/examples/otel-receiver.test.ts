import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { startTracedReceiver } from '../../examples/otel-receiver.ts';
import { useDeliveryQueue } from '../events/queue-harness.ts';
import { createAgent, createContract, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { closeAfterTest } from '../support/close-after-test.ts';
import { createTestUser, invoke } from '../support/lambda.ts';

/**
 * examples/otel-receiver.ts, the OpenTelemetry SDK receiver docs/webhooks.md shows: a contract is
 * funded with a W3C traceparent, the event is relayed and delivered for real (DynamoDB Local,
 * fauxqs, HTTP on 127.0.0.1), and the receiver's span lands in the caller's trace.
 */
const queue = useDeliveryQueue();

describe('an OpenTelemetry receiver joins the trace of the request that caused the event', () => {
  it("exports its span with the funding request's trace id, as a child of the delivery attempt", async () => {
    const exporter = new InMemorySpanExporter();
    const receiver = await startTracedReceiver(exporter);
    closeAfterTest(receiver.close);
    const owner = await createTestUser();
    const agentId = await createAgent(owner);
    await invoke('configureWebhook', {
      caller: owner,
      params: { id: agentId },
      body: { webhook_url: receiver.url, events: ['contract.funded'] },
    });
    expect((await invoke('verifyWebhook', { caller: owner, params: { id: agentId } })).body.webhook_status).toBe(
      'ENABLED',
    );
    const contractId = await createContract(owner, agentId, await publishTemplate(owner, SIMPLE_SCHEMA));
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const funded = await invoke('fundContract', {
      caller: owner,
      params: { id: contractId },
      headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    });
    expect(funded.status).toBe(200);
    const feed = await invoke('listAgentEvents', { caller: owner, params: { id: agentId }, query: { limit: '100' } });
    const event = feed.body.data.find((e: { type: string }) => e.type === 'contract.funded');
    await queue.relay(agentId, event.id);
    await queue.deliverVisible();

    const spans = exporter.getFinishedSpans().filter((s) => s.attributes['webhook.event_id'] === event.id);
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span!.spanContext().traceId).toBe(callerTrace);
    // Its parent is the attempt's own span: in the trace, not the caller's span itself.
    expect(span!.parentSpanContext?.traceId).toBe(callerTrace);
    expect(span!.parentSpanContext?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span!.parentSpanContext?.spanId).not.toBe('00f067aa0ba902b7');
    expect(span!.parentSpanContext?.isRemote).toBe(true);
    // The handshake carried no trace: its span started a trace of its own.
    const handshake = exporter
      .getFinishedSpans()
      .find((s) => s.attributes['webhook.event_type'] === 'service.webhook.verify');
    expect(handshake?.spanContext().traceId).not.toBe(callerTrace);
  });
});
