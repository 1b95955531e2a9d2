/**
 * Run it: WEBHOOK_SECRET=whsec_… PORT=8080 node server.ts   (Node 24 runs TypeScript as is; README.md installs the client)
 * It listens on loopback; HOST=0.0.0.0 (or an interface's address) lets other machines reach it.
 * Replace `onEvent` with your own code; everything else can stay.
 */
import { createReceiver, type WebhookEvent } from './receiver.ts';

const secret = process.env['WEBHOOK_SECRET'];
if (!secret) {
  console.error("Set WEBHOOK_SECRET to the agent's webhook secret (whsec_…).");
  process.exit(1);
}
const port = Number(process.env['PORT'] ?? 8080);
// Loopback unless told otherwise: a receiver under development is for this machine's service only.
const host = process.env['HOST'] ?? '127.0.0.1';

async function onEvent(event: WebhookEvent): Promise<void> {
  console.log(JSON.stringify({ received: event.type, event_id: event.id, contract_id: event.data.contract_id }));
}

const server = createReceiver({ secret, onEvent });
server.listen(port, host, () => {
  const shown = host.includes(':') ? `[${host}]` : host;
  console.log(`webhook receiver listening on http://${shown}:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
