/**
 * A stand-in for a streaming function that crashes: takes `COUNT` stream leases of `AGENT_ID`,
 * prints `held`, then waits (renewing) until it is killed with SIGKILL, so it never releases them.
 */
import { acquireStreamLease } from '../../lib/limits/stream-leases.ts';

const count = Number(process.env['COUNT']);
for (let i = 0; i < count; i++) await acquireStreamLease(process.env['AGENT_ID']!);
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);
