/**
 * `schema_versions` of a webhook (PATCH …/webhook) or an AWS destination (POST …/destinations):
 * the version of each kind's schema its deliveries are shaped to (docs/webhooks.md, "Schema
 * versions and pins"). An object with an optional whole number per kind of the catalog (another
 * key is a 400), each one of the versions the service can send for it (lib/core/event-versions.ts);
 * any other is a 400 that names the versions there are. Its own module so the destinations' routes
 * take it without the webhook's URL policy, and built of the zod parts every route bundles already.
 */
import { type AnyEventType, allEventTypes } from '../core/event-types.ts';
import { pinnableVersions } from '../core/event-versions.ts';
import * as z from '../zod.ts';

const version = z.optional(z.int('Expected a whole version number.'));

export const schemaVersionPins = z
  .strictObject(
    Object.fromEntries(allEventTypes().map((type) => [type, version])) as Record<AnyEventType, typeof version>,
  )
  .check(
    z.superRefine((pins, ctx) => {
      for (const [type, pinned] of Object.entries(pins) as Array<[AnyEventType, number | undefined]>) {
        if (pinned === undefined) continue;
        const versions = pinnableVersions(type);
        if (!versions.includes(pinned))
          ctx.addIssue({
            code: 'custom',
            path: [type],
            message: `${type} can be sent at schema version ${[...versions].sort((a, b) => a - b).join(' or ')}, not ${pinned}.`,
          });
      }
    }),
  );
