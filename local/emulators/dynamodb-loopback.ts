/**
 * How DynamoDB Local is made to listen on one address (./LoopbackDynamoDbLocal.java says why
 * the jar cannot by itself) and to parse its table's schema once (./ParsedSchemaCache.java, which
 * is compiled against the jar). The launcher is compiled once per source, jar and Java version,
 * with the compiler inside the Java runtime's own module image (`java -m jdk.compiler/…`: Debian's
 * and Temurin's JRE images carry it, so no JDK is needed), into the temporary folder; a compile
 * racing another lands whole or not at all (compiled aside, then renamed).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOURCES = ['LoopbackDynamoDbLocal.java', 'ParsedSchemaCache.java'].map((file) => join(import.meta.dirname, file));
export const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

/** The folder holding the compiled launcher, compiling it first if this source and Java have none yet; throws a sentence if it cannot. */
export function loopbackLauncher(javaVersion: string, jar: string): string {
  const hash = createHash('sha256').update(javaVersion).update(jar);
  for (const source of SOURCES) hash.update(readFileSync(source));
  const digest = hash.digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `template-marketplace-dynamodb-launcher-${digest}`);
  if (existsSync(join(dir, `${LAUNCHER_CLASS}.class`))) return dir;
  const aside = mkdtempSync(`${dir}.tmp-`);
  const compiled = spawnSync(
    'java',
    ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-nowarn', '-cp', jar, '-d', aside, ...SOURCES],
    {
      encoding: 'utf8',
    },
  );
  if (compiled.status !== 0) {
    rmSync(aside, { recursive: true, force: true });
    throw new Error(
      `Could not compile the loopback launcher of DynamoDB Local (this Java has no jdk.compiler module?):\n${compiled.stderr}`,
    );
  }
  try {
    renameSync(aside, dir);
  } catch {
    // Another start compiled it meanwhile: theirs is the same class.
    rmSync(aside, { recursive: true, force: true });
  }
  return dir;
}
