// The first module of the local runtime's worker threads (local/emulators/push-thread.ts). A thread
// gets `node --import tsx` from its parent's flags, but not the module loader a test runner installs
// in-process (vitest's), so the TypeScript module the thread runs, named in workerData.entry, is
// loaded through tsx's own hooks whoever started the parent.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
