import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The two test tiers (vitest.config.ts). A file is **unit** only if it never touches DynamoDB, SQS
 * or the local runtime, in its own process or in a child it spawns: pure modules, the client
 * against scripted servers, signatures, schedules, the network layer against servers on
 * 127.0.0.1, the CDK stacks (synthesized without bundling). `npm run test:unit` runs these with no
 * JVM, and test/support/unit-guard.ts fails a file listed here that reaches an emulator.
 * Every other test file is **integration**: it gets a fresh table on its worker's DynamoDB Local.
 * A new file is integration unless it is added here.
 */
export const UNIT_FILES = [
  'test/filters/grammar.test.ts',
  'infra/alarms.test.ts',
  'infra/asset-hash.test.ts',
  'infra/deployment-facts.test.ts',
  'infra/flags.test.ts',
  'infra/growth.test.ts',
  'infra/observability.test.ts',
  'infra/preflight.test.ts',
  'infra/queues.test.ts',
  'infra/stack.test.ts',
  'infra/stages.test.ts',
  'infra/streams.test.ts',
  'infra/tracing.test.ts',
  'infra/usage-plans.test.ts',
  'test/agents/kms.test.ts',
  'test/agents/signature.test.ts',
  'test/architecture/import-side-effects.test.ts',
  'test/architecture/key-design.test.ts',
  'test/architecture/sdk-versions.test.ts',
  'test/architecture/zod-messages.test.ts',
  'test/aws/hand-made-calls.test.ts',
  'test/aws/no-sdk-logger.test.ts',
  'test/aws/signed-request.test.ts',
  'test/architecture/layers.test.ts',
  'test/portal/schema-example.test.ts',
  'test/client/event-stream.test.ts',
  'test/client/push-socket-node.test.ts',
  'test/client/retry-policy.test.ts',
  'test/client/transport.test.ts',
  'test/client/types.test.ts',
  'test/client/verify-webhook.test.ts',
  'test/client/webhook-receiver.test.ts',
  'test/contracts/variables.test.ts',
  'test/destinations/arn.test.ts',
  'test/destinations/client-cache.test.ts',
  'test/destinations/sender-session.test.ts',
  'test/destinations/single-region-signer.test.ts',
  'test/cost-doc.test.ts',
  'test/docs-routes.test.ts',
  'test/docs/benchmarks-doc.test.ts',
  'test/docs/blocks.test.ts',
  'test/events/attempt-log.test.ts',
  'test/events/emit-check.test.ts',
  'test/events/push-channel.test.ts',
  'test/events/push-pure.test.ts',
  'test/events/schedule.test.ts',
  'test/events/schema-versions.test.ts',
  'test/events/stream-filter.test.ts',
  'test/limits/notice-window.test.ts',
  'test/limits/template-limits-doc.test.ts',
  'test/local/data-dir-lock.test.ts',
  'test/local/emulator-retry.test.ts',
  'test/local/node-version.test.ts',
  'test/local/websocket-frames.test.ts',
  'test/bench/bench-http.test.ts',
  'test/marketplace/gate-findings.test.ts',
  'test/marketplace/install-policy.test.ts',
  'test/marketplace/pure-functions.test.ts',
  'test/marketplace/schema-diff.test.ts',
  'test/net/connection-pool.test.ts',
  'test/net/ip.test.ts',
  'test/net/outbound.test.ts',
  'test/net/resolver.test.ts',
  'test/net/url-policy.test.ts',
  'test/observability.test.ts',
  'test/ops/stack-outputs.test.ts',
  'test/sample-events.test.ts',
  'test/settings.test.ts',
];

/**
 * The integration files that take longest, longest first (seconds of wall time in `npm test` on a
 * fresh clone, three workers on 2 cores, 2026-11-27 with one DynamoDB Local for the run: first-hour
 * 87, search-pairs 80, doc-examples 73, crash-recovery 45, route-fuzz 40, feed/integrity 32,
 * web/pages 27, events/delivery 19, bundle-size 18, samples-run 14, agents/verify 13, search-sort
 * 12; local/smoke, added later, 36 run alone). They start first (test/support/longest-first.ts):
 * with vitest's fallback order (larger files first, when it has no timings of an earlier run, as in
 * CI) a 60 s file could start last and run alone while the other workers idle.
 */
export const LONGEST_FILES = [
  'test/local/first-hour.test.ts',
  'test/marketplace/search-pairs.test.ts',
  'test/events/notice-gate.test.ts',
  'test/docs/doc-examples.test.ts',
  'test/events/crash-recovery.test.ts',
  'test/route-fuzz.test.ts',
  'test/local/smoke.test.ts',
  'test/events/feed/integrity.test.ts',
  // 29 s alone on a busy machine (2026-12-03): an SSE stream's access check is 10 s apart.
  'test/accounts/revocation.test.ts',
  'test/web/pages.test.ts',
  'test/events/delivery.test.ts',
  'infra/bundle-size.test.ts',
  'test/local/samples-run.test.ts',
  'test/idempotency-every-route.test.ts',
  'test/agents/verify.test.ts',
  'test/marketplace/search-sort.test.ts',
  'test/events/push-flood.test.ts',
];

/** Every test file of the repository (both tiers). */
export const ALL_TEST_FILES = ['test/**/*.test.ts', 'lib/**/*.test.ts', 'infra/**/*.test.ts'];

const root = join(import.meta.dirname, '..');
const missing = [...UNIT_FILES, ...LONGEST_FILES].filter((file) => !existsSync(join(root, file)));
// A renamed or deleted file would otherwise drop out of the unit tier (or the head of the queue) silently.
if (missing.length > 0) throw new Error(`test/tiers.ts lists test files that do not exist: ${missing.join(', ')}`);
