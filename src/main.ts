/*
 * The entry point and composition root, and the only module that reads process.env:
 * `npm start` serves the API, `timetrack <command>` runs the command line against the same
 * database and services.
 */
import { pathToFileURL } from 'node:url';
import { runCli } from './cli/main.js';
import { systemClock } from './clock.js';
import { type Config, ConfigError, parseConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { createLogger, errorFields } from './logger.js';
import { loadSecretKey } from './secret-key.js';
import { startServer } from './server.js';
import { createServices } from './services.js';

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let config: Config;
  try {
    config = parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`timetrack: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (argv.length > 0 && argv[0] !== 'serve') {
    return runCli(argv, {
      openDatabase: () => openDatabase(config.databasePath, { synchronous: config.synchronous }),
      createServices: (database) =>
        createServices(database, {
          clock: systemClock,
          secretKey: loadSecretKey(config.databasePath, config.secretKey),
          defaultTimeZone: config.serverTimeZone,
          webhooks: { allowPrivateTargets: config.webhookAllowPrivateTargets },
        }),
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    });
  }
  const logger = createLogger(config.logLevel);
  const running = await startServer(config, { logger });
  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    void running.close().then(() => {
      process.exitCode = 0;
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', errorFields(reason)));
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      if (code !== 0) process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`timetrack: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
