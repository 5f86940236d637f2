import { OPERATOR } from '../../src/principal.js';
import type { Actor } from '../../src/principal.js';
import type { Services } from '../../src/services.js';

/**
 * Declarative test data: say what a test needs by name, get back the created rows by the same
 * names. Everything is written through the real services, as the CLI and the API would, and
 * the result is frozen: a test reads it, never extends it for the next test.
 *
 *   const world = seed(server, {
 *     members: { colleague: { canViewOthersTime: true } },
 *     clients: { acme: {} },
 *     projects: { design: { client: 'acme', hourlyRate: 100 } },
 *     entries: { morning: { by: 'colleague', project: 'design', start: '…', end: '…' } },
 *   });
 *   world.projects.design.id; world.members.colleague.token;
 */
export interface SeedSpec<M extends string, C extends string, P extends string, K extends string, G extends string, E extends string> {
  /** Members besides the owner, with a token each (every scope unless given). `owner` names the bootstrap owner in `by`. */
  members?: Record<M, MemberSpec>;
  clients?: Record<C, { name?: string; archived?: boolean }>;
  projects?: Record<
    P,
    {
      name?: string;
      client?: NoInfer<C>;
      billable?: boolean;
      hourlyRate?: number | null;
      estimateSec?: number;
      budgetAmount?: number;
      archived?: boolean;
    }
  >;
  tasks?: Record<K, { name?: string; project: NoInfer<P>; hourlyRate?: number | null; archived?: boolean }>;
  tags?: Record<G, { name?: string }>;
  /** Completed entries (end given) or a running timer (no end). */
  entries?: Record<
    E,
    {
      by?: NoInfer<M> | 'owner';
      start: string;
      end?: string;
      description?: string;
      project?: NoInfer<P>;
      task?: NoInfer<K>;
      tags?: Array<NoInfer<G>>;
      billable?: boolean;
    }
  >;
}

export interface MemberSpec {
  name?: string;
  scopes?: string[];
  canViewOthersTime?: boolean;
  canViewOthersMoney?: boolean;
  hourlyRate?: number | null;
  rateLimitPerMin?: number;
}

export interface SeededMember {
  userId: string;
  tokenId: string;
  token: string;
  actor: Actor;
}

export interface World<M extends string, C extends string, P extends string, K extends string, G extends string, E extends string> {
  owner: SeededMember;
  members: Readonly<Record<M, SeededMember>>;
  clients: Readonly<Record<C, { id: string; name: string }>>;
  projects: Readonly<Record<P, { id: string; name: string }>>;
  tasks: Readonly<Record<K, { id: string; name: string }>>;
  tags: Readonly<Record<G, { id: string; name: string }>>;
  entries: Readonly<Record<E, { id: string; authorId: string }>>;
}

const ALL_SCOPES = ['entries:read', 'entries:write', 'catalog:read', 'catalog:write', 'reports:read'];

/** The server's services and bootstrap identity (a TestServer has them). */
export interface SeedTarget {
  services: Services;
  workspaceId: string;
  ownerToken: string;
}

/** Unique suffixes: seeds of several tests in one workspace never clash on names or emails. */
let counter = 0;

export function seed<
  M extends string = never,
  C extends string = never,
  P extends string = never,
  K extends string = never,
  G extends string = never,
  E extends string = never,
>(target: SeedTarget, spec: SeedSpec<M, C, P, K, G, E>): World<M, C, P, K, G, E> {
  const { services, workspaceId } = target;
  const run = ++counter;
  const authenticated = services.tokens.authenticate(target.ownerToken);
  if (!authenticated) throw new Error('seed: the owner token does not authenticate');
  const owner: SeededMember = {
    userId: authenticated.actor.userId,
    tokenId: authenticated.actor.tokenId as string,
    token: target.ownerToken,
    actor: authenticated.actor,
  };
  const ownerActor = owner.actor;

  const members = mapValues(spec.members, (m, key): SeededMember => {
    const user = services.accounts.createUser(OPERATOR, {
      name: m.name ?? key,
      email: `${key.toLowerCase()}.${run}.${counter++}@example.org`,
    });
    services.accounts.addMember(OPERATOR, {
      workspaceId,
      userId: user.id,
      canViewOthersTime: m.canViewOthersTime ?? false,
      canViewOthersMoney: m.canViewOthersMoney ?? false,
      hourlyRate: m.hourlyRate ?? null,
    });
    const token = services.tokens.create(OPERATOR, {
      workspaceId,
      userId: user.id,
      name: key,
      scopes: m.scopes ?? ALL_SCOPES,
      rateLimitPerMin: m.rateLimitPerMin ?? null,
    });
    const actor = services.tokens.authenticate(token.token)?.actor;
    if (!actor) throw new Error(`seed: the token of ${key} does not authenticate`);
    return { userId: user.id, tokenId: token.id, token: token.token, actor };
  });
  const { clients: catalogClients, projects: catalogProjects, tasks: catalogTasks, tags: catalogTags } = services.catalog;
  const clients = mapValues(spec.clients, (c, key) => {
    const row = catalogClients.create(ownerActor, { name: c.name ?? key });
    if (c.archived) catalogClients.update(ownerActor, row.id, { archived: true });
    return { id: row.id, name: row.name };
  });
  const projects = mapValues(spec.projects, (p, key) => {
    const row = catalogProjects.create(ownerActor, {
      name: p.name ?? key,
      clientId: p.client ? clients[p.client].id : null,
      ...(p.billable !== undefined ? { billable: p.billable } : {}),
      ...(p.hourlyRate !== undefined ? { hourlyRate: p.hourlyRate } : {}),
      ...(p.estimateSec !== undefined ? { estimateSec: p.estimateSec } : {}),
      ...(p.budgetAmount !== undefined ? { budgetAmount: p.budgetAmount } : {}),
    });
    if (p.archived) catalogProjects.update(ownerActor, row.id, { archived: true });
    return { id: row.id, name: row.name };
  });
  const tasks = mapValues(spec.tasks, (t, key) => {
    const row = catalogTasks.create(ownerActor, {
      name: t.name ?? key,
      projectId: projects[t.project].id,
      ...(t.hourlyRate !== undefined ? { hourlyRate: t.hourlyRate } : {}),
    });
    if (t.archived) catalogTasks.update(ownerActor, row.id, { archived: true });
    return { id: row.id, name: row.name };
  });
  const tags = mapValues(spec.tags, (g, key) => {
    const row = catalogTags.create(ownerActor, { name: g.name ?? key });
    return { id: row.id, name: row.name };
  });
  const entries = mapValues(spec.entries, (e) => {
    const by = e.by === undefined || e.by === 'owner' ? owner : members[e.by];
    const fields = {
      description: e.description ?? '',
      ...(e.project ? { projectId: projects[e.project].id } : {}),
      ...(e.task ? { taskId: tasks[e.task].id } : {}),
      ...(e.tags ? { tagIds: e.tags.map((tag) => tags[tag].id) } : {}),
      ...(e.billable !== undefined ? { billable: e.billable } : {}),
    };
    const row =
      e.end === undefined
        ? services.timers.start(by.actor, { ...fields, start: e.start })
        : services.entries.create(by.actor, { ...fields, start: e.start, end: e.end });
    return { id: row.id, authorId: row.authorId };
  });
  return Object.freeze({ owner, members, clients, projects, tasks, tags, entries });
}

function mapValues<K extends string, V, R>(record: Record<K, V> | undefined, fn: (value: V, key: K) => R): Readonly<Record<K, R>> {
  const out = {} as Record<K, R>;
  for (const key of Object.keys(record ?? {}) as K[]) out[key] = fn((record as Record<K, V>)[key], key);
  return Object.freeze(out);
}
