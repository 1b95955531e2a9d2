/**
 * Webhook outbound costs, each as a ratio to a baseline measured in the same run:
 * - the URL policy check against bare WHATWG URL parsing (what it adds per PATCH and per send);
 * - postJson (resolve, check every address, pinned pooled socket, deadline) against a plain
 *   keep-alive node:http POST to the same local server (what the safety costs per delivery).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeAllPools } from '../lib/net/connection-pool.ts';
import { postJson } from '../lib/net/outbound.ts';
import { checkWebhookUrl } from '../lib/net/url-policy.ts';

const URLS = [
  'https://hooks.example.com/webhook',
  'https://[2606:4700:4700::1111]/webhook',
  'https://0x7f.1/webhook',
  'https://[::ffff:169.254.169.254]/webhook',
  'http://localhost:3000/webhook',
];

function perCall(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(iterations, 1000); i++) fn(); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / iterations;
}

async function perCallAsync(iterations: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** Keep-alive, like postJson's pools: the baseline differs from postJson only by the safety. */
const plainAgent = new http.Agent({ keepAlive: true });

function plainPost(port: number, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', agent: plainAgent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function run(): Promise<string> {
  const parseNs = perCall(50_000, () => {
    for (const u of URLS) new URL(u);
  });
  const policyNs = perCall(50_000, () => {
    for (const u of URLS) checkWebhookUrl(u, { developmentMode: true });
  });

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const body = JSON.stringify({ type: 'contract.funded', data: { contract_id: 'ctr_x' } });
  const resolver = async () => [{ address: '127.0.0.1', family: 4 as const }];
  const plainNs = await perCallAsync(500, () => plainPost(port, body));
  const safeNs = await perCallAsync(500, () =>
    postJson({ url: `http://localhost:${port}/`, body, headers: {} }, { developmentMode: true, resolver }),
  );
  plainAgent.destroy();
  closeAllPools();
  server.close();

  const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;
  return [
    '### Webhooks: URL policy and outbound client',
    '',
    '| Operation | Per call | Baseline | Ratio |',
    '|---|---|---|---|',
    `| URL policy check (${URLS.length} URLs) | ${us(policyNs)} | WHATWG parse only: ${us(parseNs)} | ${(policyNs / parseNs).toFixed(2)}× |`,
    `| postJson to a local server (scripted DNS) | ${us(safeNs)} | plain node:http POST: ${us(plainNs)} | ${(safeNs / plainNs).toFixed(2)}× |`,
  ].join('\n');
}
