import { errorFields, type Logger } from './logger.js';

/**
 * The phases of stopping, in order: first the server stops taking work (requests drain, the
 * scheduler and the sender finish what runs), then what served it is released (reader threads,
 * the checkpointer), then the database closes and its lock goes. Within a phase, steps run at
 * once.
 */
export const PHASES = ['announce', 'stop', 'release', 'close'] as const;
export type Phase = (typeof PHASES)[number];

interface Step {
  phase: Phase;
  name: string;
  run(): unknown;
}

/**
 * One place that knows how the server stops: each part registers its step as it starts, and
 * the same steps run whether a later part failed to start or the server was asked to stop.
 */
export function createShutdown(logger: Logger) {
  const steps: Step[] = [];
  let running: Promise<void> | null = null;
  return {
    add(phase: Phase, name: string, run: () => unknown): void {
      steps.push({ phase, name, run });
    },
    /** Runs every registered step, phase by phase, once; a failing step is logged and the rest still run. */
    run(): Promise<void> {
      running ??= (async () => {
        // How long each phase took, for the log line that ends it all (docs/operations.md).
        const phasesMs: Partial<Record<Phase, number>> = {};
        for (const phase of PHASES) {
          const started = performance.now();
          await Promise.all(
            steps
              .filter((step) => step.phase === phase)
              .map(async (step) => {
                try {
                  await step.run();
                } catch (error) {
                  logger.error('a step of stopping failed', { step: step.name, ...errorFields(error) });
                }
              }),
          );
          phasesMs[phase] = Math.round(performance.now() - started);
        }
        logger.info('stopped', { phasesMs });
      })();
      return running;
    },
  };
}

export type Shutdown = ReturnType<typeof createShutdown>;
