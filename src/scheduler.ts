import cron, { type ScheduledTask } from 'node-cron';
import { errorFields, type Logger } from './logger.js';

export interface Job {
  name: string;
  run(): unknown;
}

/**
 * Periodic jobs (runaway detection, the webhook sender's tick) on one node-cron task. A tick
 * that is still running when the next is due is skipped. `tick()` runs every job once, for tests
 * with a controlled clock; `shutdown()` stops ticking and waits for a running tick to finish.
 */
export function createScheduler({ jobs, logger, expression }: { jobs: Job[]; logger: Logger; expression: string | null }) {
  let task: ScheduledTask | undefined;
  let running: Promise<void> | undefined;

  const tick = async (): Promise<void> => {
    for (const job of jobs) {
      try {
        await job.run();
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
