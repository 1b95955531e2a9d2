import type { ScheduledEvent } from 'aws-lambda';
import { rollTrendWindow } from '../../lib/marketplace/trending/trend-rollover.ts';
import { observed } from '../../lib/observability/lambda.ts';
import { log } from '../../lib/observability/log.ts';

/** EventBridge schedule (00:05 UTC daily; the local runtime runs it too) → trending's day rollover. */
export const handler = observed(
  async (_event: ScheduledEvent): Promise<{ moved: number; retired: number; skipped: number }> => {
    const result = await rollTrendWindow(Date.now());
    log.info('trend window rolled', result);
    return result;
  },
);
