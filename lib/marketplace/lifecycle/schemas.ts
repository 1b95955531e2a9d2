/** Request shapes of the lifecycle routes (docs/api.md "Marketplace"). Strict: unknown fields are a 400. */
import { ID_PATTERN, SLUG_PATTERN, UUID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';
import { VERSION_PATTERN } from '../templates/version.ts';

/** `:id` a template UUID or slug, `:version` MAJOR.MINOR.PATCH; anything else names nothing (404). */
export const versionParams = z.object({
  id: z.string().check(z.refine((id) => UUID_PATTERN.test(id) || (id.length <= 64 && SLUG_PATTERN.test(id)))),
  version: z.string().check(z.regex(VERSION_PATTERN)),
});

const message = z.string().check(z.trim(), z.minLength(1), z.maxLength(500));

export const versionChangeBody = z
  .strictObject({
    /** A message deprecates the version; null takes the deprecation back. */
    deprecated: z.optional(z.nullable(message)),
    yanked: z.optional(z.boolean()),
    /** Told to the installers with a yank. */
    reason: z.optional(z.string().check(z.trim(), z.maxLength(500))),
  })
  .check(
    z.refine((b) => b.deprecated !== undefined || b.yanked !== undefined, 'Send deprecated, yanked or both.'),
    z.refine((b) => b.reason === undefined || b.yanked === true, {
      message: 'A reason goes with yanked: true.',
      path: ['reason'],
    }),
  );
export type VersionChangeInput = z.output<typeof versionChangeBody>;

/** At most this many agents of a workspace hear of its templates' versions. */
export const MAX_EVENT_AGENTS = 10;

export const eventAgentsBody = z.strictObject({
  agent_ids: z.array(z.string().check(z.regex(ID_PATTERN.agt, 'Expected an agent id (agt_…).'))).check(
    z.maxLength(MAX_EVENT_AGENTS, `At most ${MAX_EVENT_AGENTS} agents.`),
    z.refine((ids) => new Set(ids).size === ids.length, 'Each agent once.'),
  ),
});
export type EventAgentsInput = z.output<typeof eventAgentsBody>;
