/**
 * `npm run bench -- seed-storage`: how fast the benchmark's seed writes into DynamoDB Local by
 * where its data lives (-inMemory, a -dbPath folder in tmpfs, one on the disk) and with the table's
 * stream on or off, the same generator and items as bench/search-scale.ts, each configuration in a
 * fresh process of its own, the order rotated per round; rates as ratios against -inMemory with the stream
 * on (how bench/marketplace.ts seeds) measured in the same run. Also the CPU seconds the JVM and
 * Node spent, which say where the time goes. Runs only when named.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type SeedMark, scratchFolder, seedFolder } from './_kept-catalog.ts';
import { growCatalog } from './_marketplace-seed.ts';
import { fmt, ratio } from './marketplace.ts';
import { searchScalePartitions } from './search-scale.ts';

/** Templates per seed (SEED_STORAGE_SIZE); the disk runs take minutes each at this machine's ~15/s. */
const SIZE = Number(process.env['SEED_STORAGE_SIZE'] ?? 3000);
const ROUNDS = Number(process.env['SEED_STORAGE_ROUNDS'] ?? 2);

interface Storage {
  name: string;
  dir: (scratch: string, disk: string) => string;
  streamOn: boolean;
}

const STORAGES: Storage[] = [
  { name: '-inMemory, stream on', dir: () => ':memory:', streamOn: true },
  { name: '-inMemory, stream off', dir: () => ':memory:', streamOn: false },
  { name: 'tmpfs folder, stream on', dir: (scratch) => scratch, streamOn: true },
  { name: 'tmpfs folder, stream off', dir: (scratch) => scratch, streamOn: false },
  { name: 'disk folder, stream on', dir: (_, disk) => disk, streamOn: true },
];

export async function run(): Promise<string> {
  if (!process.argv.includes('seed-storage')) return '';
  process.env['AWS_REGION'] ??= 'us-east-1';
  process.env['TABLE_NAME'] = 'bench-marketplace';
  const partitions = searchScalePartitions();
  const disk = join(import.meta.dirname, '..', '.bench-data', 'seed-storage');
  const marks = new Map(STORAGES.map((s) => [s, [] as SeedMark[]]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotated per round, so no configuration always seeds right after the same one.
    for (let i = 0; i < STORAGES.length; i++) {
      const s = STORAGES[(i + round) % STORAGES.length]!;
      // A fresh, empty folder for every seed that has one.
      rmSync(disk, { recursive: true, force: true });
      const dir = s.dir(scratchFolder('seed-storage'), disk);
      process.stderr.write(`bench: seed-storage ${s.name}…\n`);
      const now = Date.now();
      marks
        .get(s)!
        .push(
          await seedFolder(
            dir,
            { size: SIZE, partitions, now },
            (side) => growCatalog(side.catalog, SIZE, now, new Set(partitions)),
            s.streamOn,
          ),
        );
    }
  }
  rmSync(disk, { recursive: true, force: true });
  rmSync(scratchFolder('seed-storage'), { recursive: true, force: true });
  const rate = (list: SeedMark[]) => (SIZE * list.length) / list.reduce((n, m) => n + m.seconds, 0);
  // CPU is read from /proc: '–' where there is none.
  const cpuPerRound = (list: SeedMark[], of: 'jvm' | 'node') =>
    list.every((m) => m.cpu) ? fmt(list.reduce((n, m) => n + m.cpu![of], 0) / list.length, 0) : '–';
  const baseline = rate(marks.get(STORAGES[0]!)!);
  const rows = STORAGES.map((s) => {
    const list = marks.get(s)!;
    return `| ${s.name} | ${list.map((m) => fmt(m.seconds, 0)).join(', ')} | ${fmt(rate(list), 0)} | ${ratio(baseline, rate(list))} | ${cpuPerRound(list, 'jvm')} | ${cpuPerRound(list, 'node')} |`;
  });
  return [
    '### Seeding DynamoDB Local: where the data lives, and the stream',
    '',
    `${SIZE.toLocaleString('en')} templates of the search-scale generator per seed (BatchWriteItem, 8 in parallel), each configuration in a fresh DynamoDB Local process, ${ROUNDS} round(s), order rotated per round. Templates/s over all rounds; rate ratio against -inMemory with the stream on, in the same run; CPU per round. CPU: seconds the JVM and Node used during the seed (both processes share the machine's 2 cores).`,
    '',
    '| Data | Seconds, each round | Templates/s | Rate ratio | JVM CPU s | Node CPU s |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
