/** The replay answer of the API, declared once (see lib/events/delivery/answer.ts). */
import { z } from 'zod';
import { count } from '../../core/answer-fields.ts';

export const replayAcceptedAnswer = z.strictObject({
  replayed: count.describe('Events in the window when the request was made: the job sends each once.'),
});
