/**
 * Everything the process writes to stdout and stderr while `fn` runs, as one string (log lines are
 * JSON, one per line). `fn` may read what is written so far, to wait for a line instead of sleeping.
 */
export async function writtenDuring(fn: (soFar: () => string) => Promise<unknown>): Promise<string> {
  const written: string[] = [];
  const [out, err] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  const keep = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = keep;
  process.stderr.write = keep;
  try {
    await fn(() => written.join(''));
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return written.join('');
}
