/**
 * The publish gate (docs/marketplace.md, "Publish gate"): every publish and version is checked
 * (gate-findings.ts) before it is listed. A finding holds it in quarantine: a first version keeps
 * its template hidden (seen by its author and operators only, as a hidden template is), a later
 * version is stored but not made current, installable or announced. Operators release or reject it
 * (lib/marketplace/moderation, audited); the author may publish the same version again, fixed.
 *
 * Verified publishers' names and slugs are one item of skeletons (a string set, changed only by
 * ADD and DELETE): what verifying an author adds and each publish by a verified author adds to.
 * Its bound: DynamoDB's 400 KB item holds about 8,000 entries of 50 bytes.
 */
import type { Caller } from '../../core/caller.ts';
import type { Quarantine } from './answer.ts';
import { type Finding, type GateInput, gateFindings, type ProtectedName, skeleton } from './gate-findings.ts';
import { protectedEntriesChange, readProtectedEntries } from './store.ts';

export const protectedEntry = (authorId: string, of: ProtectedName['of'], text: string): string =>
  `${authorId}|${of}|${skeleton(text)}`;

function parseEntry(entry: string): ProtectedName | undefined {
  const [author_id, of, ...rest] = entry.split('|');
  if (!author_id || (of !== 'publisher' && of !== 'slug')) return undefined;
  return { author_id, of, skeleton: rest.join('|') };
}

/** The gate's findings for what `caller` publishes: one GetItem of the protected names, the rest in memory. */
export async function gateCheck(input: GateInput, caller: Caller): Promise<Finding[]> {
  const names = (await readProtectedEntries()).map(parseEntry).filter((n) => n !== undefined);
  return gateFindings(input, caller.userId, names);
}

export const quarantineOf = (findings: Finding[], at: string): Quarantine | undefined =>
  findings.length === 0 ? undefined : { status: 'quarantined', findings, at };

/** A verified author's new slug joins the protected names, in the publish's own transaction. */
export const protectSlug = (authorId: string, slug: string) =>
  protectedEntriesChange('ADD', [protectedEntry(authorId, 'slug', slug)]);

/** Verifying (or unverifying) an author: their name and their templates' slugs. */
export const protectAuthor = (verified: boolean, authorId: string, name: string, slugs: string[]) =>
  protectedEntriesChange(verified ? 'ADD' : 'DELETE', [
    protectedEntry(authorId, 'publisher', name),
    ...slugs.map((s) => protectedEntry(authorId, 'slug', s)),
  ]);
