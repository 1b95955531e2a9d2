// The first module of the local runtime's worker threads (local/emulators/push-thread.ts). Node 20's
// worker threads do not inherit the parent's loader hooks (`node --import tsx`, vitest's), so the
// TypeScript module the thread runs, named in workerData.entry, is loaded through tsx's own hooks.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
