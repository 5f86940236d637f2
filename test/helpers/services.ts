import { randomBytes } from 'node:crypto';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { type Actor, OPERATOR } from '../../src/principal.js';
import { createServices, type ServiceOptions, type Services } from '../../src/services.js';
import { DEFAULT_NOW } from './server.js';
import { TEST_PASSWORD_COST } from './password-cost.js';
import { type SeedTarget } from './seed.js';

/** The services over an in-memory database: no server, no HTTP, a clock the test moves. */
export interface ServiceWorld extends SeedTarget {
  services: Services;
  database: DatabaseHandle;
  clock: ManualClock;
  workspaceId: string;
  ownerId: string;
  ownerToken: string;
  /** The bootstrap owner as a principal (an API token's actor, both visibility flags on). */
  owner: Actor;
  /** A member of the workspace with the flags given, as a principal (their token's actor). */
  member(options?: {
    name?: string;
    canViewOthersTime?: boolean;
    canViewOthersMoney?: boolean;
    hourlyRate?: number | null;
    isOwner?: boolean;
  }): Actor;
  close(): void;
}

/**
 * The real services over `:memory:` with the real migrations, a manual clock and the first-start
 * bootstrap (a workspace, its owner, an all-scopes token): the rules only reachable through HTTP
 * so far, tested in milliseconds. Writes outside the one write path throw here too.
 */
export function memoryServices(
  options: {
    now?: number;
    defaultTimeZone?: string;
    /** Production's scrypt cost instead of the tests'. */ productionPasswordCost?: boolean;
    /** Outgoing mail on (a relay stand-in that records what it is given): off when absent. */
    mail?: ServiceOptions['mail'];
    /** Where the services log (silent when absent). */
    logger?: ServiceOptions['logger'];
  } = {},
): ServiceWorld {
  const database = openDatabase(':memory:', { strictWrites: true });
  const clock = new ManualClock(options.now ?? DEFAULT_NOW);
  const services = createServices(database, {
    clock,
    secretKey: randomBytes(32),
    defaultTimeZone: options.defaultTimeZone ?? 'UTC',
    ...(options.productionPasswordCost ? {} : { passwordCost: TEST_PASSWORD_COST }),
    ...(options.mail ? { mail: options.mail } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const boot = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
  if (!boot) throw new Error('a new in-memory database was not empty');
  const actorOf = (token: string): Actor => {
    const authenticated = services.tokens.authenticate(token);
    if (!authenticated) throw new Error('the token does not authenticate');
    return authenticated.actor;
  };
  let n = 0;
  return {
    services,
    database,
    clock,
    workspaceId: boot.workspaceId,
    ownerId: boot.userId,
    ownerToken: boot.token,
    owner: actorOf(boot.token),
    member(flags = {}) {
      n += 1;
      const { id } = services.accounts.createUser(OPERATOR, { name: flags.name ?? `Member ${n}`, email: `member${n}@example.org` });
      services.accounts.addMember(OPERATOR, {
        workspaceId: boot.workspaceId,
        userId: id,
        canViewOthersTime: flags.canViewOthersTime ?? false,
        canViewOthersMoney: flags.canViewOthersMoney ?? false,
        hourlyRate: flags.hourlyRate ?? null,
        isOwner: flags.isOwner ?? false,
      });
      const scopes = ['entries:read', 'entries:write', 'catalog:read', 'catalog:write', 'reports:read'];
      return actorOf(services.tokens.create(OPERATOR, { workspaceId: boot.workspaceId, userId: id, name: 't', scopes }).token);
    },
    close: () => database.close(),
  };
}
