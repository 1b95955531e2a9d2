/**
 * The environment as a file found it, put back after the file: both tiers share a worker between
 * files (isolate: false), and a variable one file sets must not reach the next.
 */
export function snapshotEnvironment(): () => void {
  const before = { ...process.env };
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
    Object.assign(process.env, before);
  };
}
