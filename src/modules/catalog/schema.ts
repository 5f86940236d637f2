import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { primaryId, reference, referenceKey, timestamps } from '../../db/columns.js';
import { workspaces } from '../accounts/schema.js';

/**
 * The catalog. `name_key` is the name trimmed, NFC-normalised and lower-cased (in JS, so it is
 * Unicode-aware); unique indexes on it make duplicate names impossible even for two concurrent
 * writes.
 */
export const clients = sqliteTable(
  'clients',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    // Invoice-recipient party fields, copied onto invoices at creation.
    legalName: text('legal_name'),
    addressLines: text('address_lines', { mode: 'json' }).$type<string[]>(),
    postalCode: text('postal_code'),
    city: text('city'),
    country: text('country'),
    taxId: text('tax_id'),
    email: text('email'),
    reference: text('reference'),
    vatId: text('vat_id'),
    electronicAddress: text('electronic_address'),
    electronicAddressScheme: text('electronic_address_scheme'),
    // The client's VAT treatment on its invoices, over the workspace's (null: the workspace's).
    taxCategory: text('tax_category'),
    exemptionReason: text('exemption_reason'),
    exemptionReasonCode: text('exemption_reason_code'),
    /**
     * How its invoices round each entry's time, over the workspace's invoicing settings: a rule
     * (`up-15`, `nearest-6` …) or `none`; null: the workspace's. Set by the web app and the
     * command line only (not part of the API's client).
     */
    rounding: text('rounding'),
    /**
     * The language of its invoices' documents over the workspace's invoicing `language`
     * (decisions §12): `en`, `de`; null: the workspace's. Set by the web app and the command line
     * only (not part of the API's client).
     */
    language: text('language'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('clients_name').on(t.workspaceId, t.nameKey)],
);

export const projects = sqliteTable(
  'projects',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    clientId: text('client_id').references(() => clients.id),
    /** client_id, or '' without a client: the parent within which names are unique. */
    clientKey: text('client_key').notNull(),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    color: text('color').notNull(),
    billable: integer('billable', { mode: 'boolean' }).notNull(),
    hourlyRate: real('hourly_rate'),
    estimateSec: integer('estimate_sec'),
    budgetAmount: real('budget_amount'),
    /**
     * Its own VAT on invoices (decisions §12): `S` with `tax_rate` (7, 19) or `Z`; null: the
     * invoice's own. Set by the web app and the command line only (not part of the API's project).
     */
    taxCategory: text('tax_category'),
    taxRate: real('tax_rate'),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    // Unique per client, or per workspace for projects without a client.
    uniqueIndex('projects_name').on(t.workspaceId, t.clientKey, t.nameKey),
    index('projects_client').on(t.clientId),
  ],
);

export const tasks = sqliteTable(
  'tasks',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    projectId: reference('project_id', () => projects.id),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    estimateSec: integer('estimate_sec'),
    hourlyRate: real('hourly_rate'),
    /** Its own VAT over its project's (decisions §12): `S` with `tax_rate`, or `Z`; null: the project's. Not part of the API's task. */
    taxCategory: text('tax_category'),
    taxRate: real('tax_rate'),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    ...timestamps(),
  },
  (t) => [uniqueIndex('tasks_name').on(t.projectId, t.nameKey), index('tasks_workspace').on(t.workspaceId)],
);

export const tags = sqliteTable(
  'tags',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('tags_name').on(t.workspaceId, t.nameKey)],
);

/**
 * Totals of the completed entries of each project, kept by triggers on `entries` (see the
 * migration), so project progress is one indexed lookup instead of a scan of the entries.
 */
export const projectTotals = sqliteTable('project_totals', {
  projectId: referenceKey('project_id', () => projects.id),
  trackedSec: integer('tracked_sec').notNull().default(0),
  billableSec: integer('billable_sec').notNull().default(0),
  /** Sum of the entries' amounts in cents (integers, so adding and subtracting never drifts). */
  amountCents: integer('amount_cents').notNull().default(0),
  entryCount: integer('entry_count').notNull().default(0),
});
