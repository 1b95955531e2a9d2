/**
 * Run it: WEBHOOK_SECRET=whsec_… PORT=8080 node server.ts   (Node 24 runs TypeScript as is; README.md installs the client)
 * Replace `onEvent` with your own code; everything else can stay.
 */
import { createReceiver, type WebhookEvent } from './receiver.ts';

const secret = process.env['WEBHOOK_SECRET'];
if (!secret) {
  console.error("Set WEBHOOK_SECRET to the agent's webhook secret (whsec_…).");
  process.exit(1);
}
const port = Number(process.env['PORT'] ?? 8080);

async function onEvent(event: WebhookEvent): Promise<void> {
  console.log(JSON.stringify({ received: event.type, event_id: event.id, contract_id: event.data.contract_id }));
}

const server = createReceiver({ secret, onEvent });
server.listen(port, () => console.log(`webhook receiver listening on http://localhost:${port}`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
