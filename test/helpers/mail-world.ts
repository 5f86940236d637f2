import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { parseMailSettings } from '../../src/modules/mail/service.js';
import { createServices, type Services } from '../../src/services.js';
import { TEST_PASSWORD_COST } from './password-cost.js';
import { DEFAULT_NOW } from './server.js';

/** The services over `:memory:` with mail through a test relay (SMTP_URL, MAIL_FROM, SMTP_CA_FILE as given). */
export function mailWorld(env: Record<string, string>) {
  const problems: string[] = [];
  const settings = parseMailSettings({ MAIL_FROM: 'Timetrack <time@example.org>', ...env }, problems);
  if (problems.length > 0 || settings === null) throw new Error(problems.join('; '));
  const database = openDatabase(':memory:', { strictWrites: true });
  const clock = new ManualClock(DEFAULT_NOW);
  const logLines: string[] = [];
  const services: Services = createServices(database, {
    clock,
    secretKey: randomBytes(32),
    logger: createLogger('debug', (line) => logLines.push(line)),
    mail: { settings, links: () => 'http://127.0.0.1:9/settings' },
    passwordCost: TEST_PASSWORD_COST,
  });
  const boot = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
  if (!boot) throw new Error('not empty');
  return { services, clock, database, logLines, workspaceId: boot.workspaceId, ownerId: boot.userId, close: () => database.close() };
}

/** A port nothing listens on (connection refused). */
export const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
