/**
 * How DynamoDB Local is made to listen on one address (./LoopbackDynamoDbLocal.java says why
 * the jar cannot by itself). The launcher is compiled once per launcher source and Java version,
 * with the compiler inside the Java runtime's own module image (`java -m jdk.compiler/…`: Debian's
 * and Temurin's JRE images carry it, so no JDK is needed), into the temporary folder; a compile
 * racing another lands whole or not at all (compiled aside, then renamed).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOURCE = join(import.meta.dirname, 'LoopbackDynamoDbLocal.java');
export const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

/** The folder holding the compiled launcher, compiling it first if this source and Java have none yet; throws a sentence if it cannot. */
export function loopbackLauncher(javaVersion: string): string {
  const digest = createHash('sha256').update(readFileSync(SOURCE)).update(javaVersion).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `template-marketplace-dynamodb-launcher-${digest}`);
  if (existsSync(join(dir, `${LAUNCHER_CLASS}.class`))) return dir;
  const aside = mkdtempSync(`${dir}.tmp-`);
  const compiled = spawnSync('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-d', aside, SOURCE], {
    encoding: 'utf8',
  });
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
