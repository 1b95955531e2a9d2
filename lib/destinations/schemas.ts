/** Request shapes of the destination routes (docs/api.md). Strict: unknown fields are a 400. */

import { ID_PATTERN } from '../core/ids.ts';
import * as z from '../zod.ts';

export const destinationParams = z.strictObject({
  id: z.string().check(z.regex(ID_PATTERN.agt)),
  destination_id: z.string().check(z.regex(ID_PATTERN.dst)),
});

export const verifyDestinationBody = z.strictObject({
  code: z.string().check(z.minLength(1, 'Give the code of the verification message.'), z.maxLength(64)),
});
