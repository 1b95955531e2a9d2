/** Everything the process writes to stdout and stderr while `fn` runs, as one string (log lines are JSON, one per line). */
export async function writtenDuring(fn: () => Promise<unknown>): Promise<string> {
  const written: string[] = [];
  const [out, err] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  const keep = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = keep;
  process.stderr.write = keep;
  try {
    await fn();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return written.join('');
}
