/**
 * What a test opened (receivers, servers), closed after it. The tiers' setup files
 * (per-file-table.ts, unit-guard.ts) register the one afterEach that closes them: a support
 * module's own module-level afterEach would be registered by the first file of a worker only,
 * since a worker imports each module once for all its files.
 */
const opened: Array<() => Promise<void>> = [];

export function closeAfterTest(close: () => Promise<void>): void {
  opened.push(close);
}

export async function closeOpened(): Promise<void> {
  await Promise.all(opened.splice(0).map((close) => close()));
}
