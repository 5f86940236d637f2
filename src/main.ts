/*
 * The entry point and composition root, and the only module that reads process.env:
 * `npm start` serves the API, `timetrack <command>` runs the command line against the same
 * database and services.
 */
import { pathToFileURL } from 'node:url';
import { type Config, ConfigError, parseConfig } from './config.js';

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
    // A command loads the command line and the services only; serving loads the HTTP stack. Each
    // path imports what it needs when it runs, so a `timetrack` command starts in about half the
    // time (the server's modules are a third of a command's wall time otherwise).
    const [
      { openExistingDatabase },
      { runCli },
      { systemClock },
      { openDatabase },
      { loadSecretKey },
      { configuredServices },
      { linkBase, recordedAddress },
      { serverRuns },
      { IMPORT_ALONE_WRITE_MS, IMPORT_SHARED_WRITE_MS },
    ] = await Promise.all([
      import('./cli/database.js'),
      import('./cli/main.js'),
      import('./clock.js'),
      import('./db/database.js'),
      import('./secret-key.js'),
      import('./services.js'),
      import('./links.js'),
      import('./db/backup.js'),
      import('./modules/imports/service.js'),
    ]);
    const links = linkBase(config, recordedAddress(config.databasePath));
    return runCli(argv, {
      // The command line opens an existing database only (the server creates it).
      openDatabase: () =>
        openExistingDatabase(config.databasePath, (path) =>
          openDatabase(path, { synchronous: config.synchronous, backupsBeforeMigrating: config.migrationBackups }),
        ),
      databasePath: config.databasePath,
      createServices: (database) =>
        configuredServices(database, config, {
          clock: systemClock,
          secretKey: loadSecretKey(config.databasePath, config.secretKey),
          // `mail test` and `mail retry` send from here; mail the command line queues is sent by the server.
          mail: { links: () => (config.settingsPath === null ? null : `${links.url}${config.settingsPath}`) },
          // An import's writes are short while a server runs on the database (asked before each).
          importWriteMs: () => (serverRuns(config.databasePath) ? IMPORT_SHARED_WRITE_MS : IMPORT_ALONE_WRITE_MS),
        }),
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      stderrIsTty: process.stderr.isTTY === true,
      settingsUrl: config.settingsPath === null ? null : `${links.url}${config.settingsPath}`,
      linkWarning: links.warning,
      readStdin: async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      },
    });
  }
  const [{ createLogger, errorFields }, { startServer }] = await Promise.all([import('./logger.js'), import('./server.js')]);
  const logger = createLogger(config.logLevel);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(config, { logger });
  } catch (error) {
    // A setting found wrong only at the start (the identity provider's discovery): said in a sentence.
    if (error instanceof ConfigError) {
      process.stderr.write(`timetrack: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
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
