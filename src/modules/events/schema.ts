import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, reference } from '../../db/columns.js';
import { workspaces } from '../accounts/schema.js';

/**
 * Domain events: one row per write, in the write's transaction. It is the realtime sync event
 * (`timetrack sync tail`) and, for entry and invoice events, the source of webhook deliveries.
 */
export const events = sqliteTable(
  'events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    workspaceId: reference('workspace_id', () => workspaces.id),
    entity: text('entity', { enum: ['entry', 'client', 'project', 'task', 'tag', 'invoice'] }).notNull(),
    entityId: text('entity_id').notNull(),
    operation: text('operation', { enum: ['create', 'update', 'delete'] }).notNull(),
    /** The webhook event name (entry.created, …); null for catalog writes, which send no webhooks. */
    event: text('event'),
    actorUserId: text('actor_user_id'),
    actorTokenId: text('actor_token_id'),
    originId: text('origin_id'),
    /** JSON snapshot of the entity at event time (null for a catalog delete). */
    payload: text('payload'),
    createdAt: createdAt(),
  },
  (t) => [index('events_ws_seq').on(t.workspaceId, t.seq)],
);
