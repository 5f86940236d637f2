import cron, { type ScheduledTask } from 'node-cron';
import type { Clock } from './clock.js';
import { errorFields, type Logger } from './logger.js';

/** A periodic job, registered by the module that owns it: run on every tick, or at most once an hour. */
export interface Job {
  name: string;
  every: 'tick' | 'hour';
  run(): unknown;
}

/**
 * The periodic jobs the modules registered (runaway detection, the webhook sender's tick, the
 * search index, retention) on one node-cron task. A tick
 * that is still running when the next is due is skipped. `tick()` runs every job once, for tests
 * with a controlled clock; `shutdown()` stops ticking and waits for a running tick to finish.
 */
export function createScheduler({
  jobs,
  logger,
  clock,
  expression,
  onResult,
}: {
  jobs: readonly Job[];
  logger: Logger;
  clock: Clock;
  expression: string | null;
  /** What a job returned (the runaway check's count, for the metrics). */
  onResult?: (job: string, result: unknown) => void;
}) {
  let task: ScheduledTask | undefined;
  let running: Promise<void> | undefined;
  const lastRun = new Map<string, number>();

  const tick = async (): Promise<void> => {
    for (const job of jobs) {
      if (job.every === 'hour') {
        const now = clock.now();
        if (now - (lastRun.get(job.name) ?? -Infinity) < 3_600_000) continue;
        lastRun.set(job.name, now);
      }
      try {
        const result = await job.run();
        onResult?.(job.name, result);
      } catch (error) {
        logger.error('scheduled job failed', { job: job.name, ...errorFields(error) });
      }
    }
  };

  return {
    start(): void {
      if (expression === null || task) return;
      cron.setLogger({
        info: () => {},
        debug: () => {},
        warn: (m) => logger.debug('node-cron', { message: m }),
        error: (m) => logger.warn('node-cron', { message: String(m) }),
      });
      task = cron.schedule(
        expression,
        () => {
          running = tick();
          return running;
        },
        { noOverlap: true, name: 'timetrack-scheduler' },
      );
    },
    tick,
    async shutdown(): Promise<void> {
      if (task) {
        await task.stop();
        await task.destroy();
        task = undefined;
      }
      await running;
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
