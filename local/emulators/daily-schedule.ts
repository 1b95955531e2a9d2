import type { ScheduledEvent } from 'aws-lambda';
import { setting } from '../../lib/core/environment.ts';
import { LOCAL_DEFAULTS } from '../../lib/core/settings.ts';
import { TREND_ROLLOVER_UTC, workers } from '../../lib/routes.ts';
import { runAsWorker } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';

const DAY_MS = 86_400_000;

/** Milliseconds from `now` to the next `hour:minute` UTC (a full day when it is that minute now). */
export function untilNextUtc(now: number, at: { hour: number; minute: number }): number {
  const today = new Date(now);
  const next = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), at.hour, at.minute);
  return next > now ? next - now : next + DAY_MS - now;
}

const scheduledEvent = (time: number): ScheduledEvent => ({
  version: '0',
  id: crypto.randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date(time).toISOString(),
  region: setting('AWS_REGION') ?? LOCAL_DEFAULTS.region,
  resources: ['local:TrendRolloverSchedule'],
  detail: {},
});

/**
 * The EventBridge rule of infra/workers-stack.ts for the local runtime: the trend rollover handler once at
 * start (a machine that slept through midnight catches up) and then daily at TREND_ROLLOVER_UTC.
 */
export function startDailySchedule(): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    running = loadHandler<(e: ScheduledEvent) => Promise<unknown>>(workers.trendRollover)
      .then((handler) => runAsWorker('trendRollover', () => handler(scheduledEvent(Date.now()))))
      .then(
        () => undefined,
        (err: unknown) =>
          void process.stderr.write(`trend rollover failed: ${err instanceof Error ? err.message : String(err)}\n`),
      );
    if (!stopped) timer = setTimeout(run, untilNextUtc(Date.now(), TREND_ROLLOVER_UTC));
  };
  run();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
