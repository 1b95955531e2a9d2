/**
 * Where `npm start` writes its log lines: a file under DATA_DIR (`runtime.log`; a temporary file
 * for `DATA_DIR=:memory:`), so the console keeps the banner and what needs the user. An ERROR line
 * is written to the console too: it is one. A `LOG_LEVEL` given in the environment means the user
 * wants to see the lines: they stay on the console, as before.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LogWriter } from '../lib/observability/log.ts';

/** The log file of a runtime on `dataDir` listening on `port` (the port tells two `:memory:` runtimes apart). */
export const logFilePath = (dataDir: string, port: number): string =>
  dataDir === ':memory:' ? join(tmpdir(), `template-marketplace-${port}.log`) : join(dataDir, 'runtime.log');

/** True when the environment names a LOG_LEVEL: the lines stay on the console. */
export const logsOnConsole = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env['LOG_LEVEL']);

/** Appends each line to `path`; an ERROR line goes to stderr as well. `close` ends the file. */
export function logFileWriter(path: string): { write: LogWriter; close: () => void } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  let open = true;
  return {
    write: (level, line) => {
      // Synchronous: a line is never lost to a stop, and the runtime's log rate is a few lines a second.
      if (open) writeSync(fd, `${line}\n`);
      if (level === 'error') process.stderr.write(`${line}\n`);
    },
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
