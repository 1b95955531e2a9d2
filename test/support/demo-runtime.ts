import { readDelivery } from '../../lib/events/delivery/store.ts';
import { tableName } from '../../lib/store/client.ts';
import { DEMO_DELIVERY } from '../../local/demo/identity.ts';
import { seedDemoData } from '../../local/demo/seed.ts';
import { startDemoWebhookSink } from '../../local/demo/webhook-sink.ts';
import { startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createLocalApi, type LocalApi, listen } from '../../local/gateway/api-gateway.ts';
import { publishRuntime } from '../../local/runtime-file.ts';

/**
 * What `npm start` does on its first run, on the test file's own table, in its order: the demo
 * sink, the seed (twice: a second start finds everything and makes nothing twice), then the event
 * pipeline, which delivers the seeded events. Resolves once the delivery the retryDelivery
 * example names has succeeded, so every route's `doc.example` can run. Returns the stop.
 */
export async function startDemoRuntime(): Promise<() => Promise<void>> {
  process.env['DEVELOPMENT_MODE'] = 'true';
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    const sink = await startDemoWebhookSink();
    stops.push(sink.close);
    await seedDemoData({ webhookSink: sink.url });
    await seedDemoData({ webhookSink: sink.url });
    const pipeline = await startEventPipeline({
      tableName: tableName(),
      dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    });
    stops.push(pipeline.stop);
    // The API, for the push channel's @connections: npm start's own port.
    const api: LocalApi = await listen(createLocalApi(), 0);
    stops.push(api.close);
    process.env['PUSH_CONNECTIONS_ENDPOINT'] = api.url;
    const withdraw = publishRuntime(process.env['DYNAMODB_ENDPOINT']!, {
      sqs_endpoint: pipeline.sqsEndpoint,
      queue_url: pipeline.queueUrl,
      connections_endpoint: api.url,
    });
    stops.push(async () => withdraw());
    const deadline = Date.now() + 90_000;
    while ((await readDelivery(DEMO_DELIVERY.agentId, DEMO_DELIVERY.deliveryId))?.status !== 'succeeded') {
      if (Date.now() > deadline) throw new Error('the demo delivery did not succeed within 90 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}
