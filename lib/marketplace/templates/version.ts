import { InvariantError } from '../../core/errors.ts';
/** MAJOR.MINOR.PATCH without leading zeros; each part below a million so it fits the sortable key. */
export const VERSION_PATTERN = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

function parts(version: string): [number, number, number] {
  const match = VERSION_PATTERN.exec(version);
  if (!match) throw new InvariantError(`not a version: ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Negative, zero or positive, like a sort comparator. */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

/** "1.2.3" → "000001.000002.000003": string order = version order, so a Query returns newest first. */
export function sortableVersion(version: string): string {
  return parts(version)
    .map((p) => String(p).padStart(6, '0'))
    .join('.');
}
