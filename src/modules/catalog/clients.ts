import type { components } from '../../../generated/openapi.js';
import { catalogErrors } from './errors.js';
import { type Key, words } from '../../i18n/index.js';
import type { Actor } from '../../principal.js';
import { checkParticipantId, checkVatId } from '../../kernel/identifiers.js';
import { requireSafeValue } from '../../kernel/input.js';
import { requireTaxCategory, requireVatexCode } from '../../kernel/tax.js';
import { type CatalogDeps, catalogEvent, stillReferenced } from './common.js';
import { acceptedName, nameKey, newNamedRow } from './names.js';
import type { clients } from './schema.js';
import { type ClientView, clientView } from './views.js';

type Schemas = components['schemas'];

/** The invoice-recipient party fields of a client. */
const PARTY_FIELDS = [
  'legalName',
  'addressLines',
  'postalCode',
  'city',
  'country',
  'taxId',
  'email',
  'reference',
  'vatId',
  'electronicAddress',
  'electronicAddressScheme',
] as const;

type PartyInput = Partial<Record<(typeof PARTY_FIELDS)[number] | (typeof TAX_FIELDS)[number], unknown>>;

/** The client's VAT treatment on its invoices (null: the workspace's invoicing settings). */
const TAX_FIELDS = ['taxCategory', 'exemptionReason', 'exemptionReasonCode'] as const;

/**
 * The rules of a client's party and tax fields as given, before anything is written: who may set
 * them (an owner, or a member who sees colleagues' money: the owner's next invoice is addressed
 * and taxed by them, issue 44 M2), and that their text holds no control or bidirectional
 * character (it reaches the invoice's XML and the mail's To name, as a name does: L5).
 */
function checkPartyInput(actor: Actor, input: PartyInput): void {
  const given = [...PARTY_FIELDS, ...TAX_FIELDS].filter((field) => input[field] !== undefined);
  if (given.length > 0 && !actor.isOwner && !actor.canViewOthersMoney) throw catalogErrors.partyHidden(given);
  checkPartyText(input);
}

/** The one rule of an invoice's text (src/kernel/input.ts) on each party and tax field given. */
function checkPartyText(input: PartyInput): void {
  for (const field of [...PARTY_FIELDS, ...TAX_FIELDS])
    if (input[field] !== undefined) requireSafeValue(input[field], field === 'addressLines' ? 'an address line' : field, field);
}

/** The tax fields given: a category code, a reason text, a VATEX code; blank or null clears one. */
function taxValues(input: PartyInput): Partial<typeof clients.$inferInsert> {
  const values: Partial<typeof clients.$inferInsert> = {};
  for (const field of TAX_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (value !== null && typeof value !== 'string')
      throw catalogErrors.invalidAt(field, `${field} must be text or null.`, words('input.refused.textOrNull', { what: field }));
    const text = value === null ? '' : value.trim();
    if (text === '') values[field] = null;
    else if (field === 'taxCategory') values[field] = requireTaxCategory(text, field);
    else if (field === 'exemptionReasonCode') values[field] = requireVatexCode(text, field);
    else if (text.length > 200)
      throw catalogErrors.invalidAt(field, 'exemptionReason must be at most 200 characters.', words('input.refused.exemptionReasonLong'));
    else values[field] = text;
  }
  return values;
}

/** The party fields given, trimmed; a blank field is null, and so is an address of blank lines. */
function partyValues(input: PartyInput): Partial<typeof clients.$inferInsert> {
  const values: Record<string, unknown> = { ...taxValues(input) };
  for (const field of PARTY_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (typeof value === 'string') {
      values[field] = value.trim() === '' ? null : value.trim();
      // A VAT identifier is checked by its country's pattern and stored compact (decisions 11a).
      if (field === 'vatId' && values[field] !== null) values[field] = checkVatId(value, field);
    } else if (Array.isArray(value)) {
      const lines = (value as string[]).map((line) => line.trim()).filter((line) => line !== '');
      values[field] = lines.length === 0 ? null : lines;
    } else {
      values[field] = value;
    }
  }
  return values;
}

type PartyRow = Partial<
  Pick<
    typeof clients.$inferSelect,
    'electronicAddress' | 'electronicAddressScheme' | 'taxCategory' | 'exemptionReason' | 'exemptionReasonCode'
  >
>;

/**
 * The rules between fields, on the client as it will be stored (`row`), checked when the input
 * touches them (a client stored before a rule keeps saving its other fields): a scheme names the
 * kind of an electronic address, so it needs one; an exempt client (E) must say why (no usual
 * wording exists for E, unlike AE, K, G and O).
 */
function checkParty(row: PartyRow, input: PartyInput): void {
  if (
    (input.electronicAddressScheme !== undefined || input.electronicAddress !== undefined) &&
    row.electronicAddressScheme != null &&
    row.electronicAddress == null
  )
    throw catalogErrors.invalidAt(
      'electronicAddressScheme',
      `electronicAddressScheme ${JSON.stringify(row.electronicAddressScheme)} names the kind of an electronic address, but the client has none: give its electronicAddress (BT-49, e.g. its Leitweg-ID or Peppol ID), or clear the scheme.`,
      words('input.refused.schemeWithoutAddress', { scheme: JSON.stringify(row.electronicAddressScheme) }),
    );
  // A Peppol participant identifier: the address checked by what its scheme identifies (decisions 11a).
  if ((input.electronicAddressScheme !== undefined || input.electronicAddress !== undefined) && row.electronicAddress != null)
    checkParticipantId(row.electronicAddress, row.electronicAddressScheme ?? null);
  if (
    TAX_FIELDS.some((field) => input[field] !== undefined) &&
    row.taxCategory === 'E' &&
    row.exemptionReason == null &&
    row.exemptionReasonCode == null
  )
    throw catalogErrors.invalidAt(
      'exemptionReason',
      'An exempt client (taxCategory E) must say why its invoices carry no VAT: give exemptionReason (the sentence printed on them, e.g. "Steuerfrei nach § 4 Nr. 14 UStG") or exemptionReasonCode (a VATEX code such as VATEX-EU-132), or leave the category to the workspace.',
      words('input.refused.exemptWithoutReason'),
    );
}

/** What a client's detail must be, by key (the words say it after the field as the file writes it). */
const EXPECTED = {
  addressLines: 'input.value.addressLines',
  textOrNull: 'input.value.textOrNull',
  countryUpper: 'input.value.countryUpper',
  email: 'input.value.email',
  easCode: 'input.value.easCode',
  text200: 'input.value.text200',
} as const satisfies Record<string, Key>;

/**
 * A client's invoicing details as a file carries them (a workspace's export: issue 54 N3),
 * checked by every rule the API and the Catalog page apply before they are stored: the
 * contract's (at most 200 characters of text, six address lines, a country of two capitals, an
 * email address, a scheme of at most 20 characters) and the service's (the text rule, the VAT
 * id by its country, the tax category and VATEX code, the electronic address by its scheme, an
 * exempt client's reason). Returns them as the API stores them (trimmed, the VAT id compact).
 */
export function checkPartyDetails(details: Record<string, unknown>): Record<string, unknown> {
  const input: PartyInput = {};
  for (const field of [...PARTY_FIELDS, ...TAX_FIELDS]) if (details[field] !== undefined) input[field] = details[field];
  for (const [field, value] of Object.entries(input)) {
    if (value === null) continue;
    const bad = (expected: string, rule: keyof typeof EXPECTED) =>
      catalogErrors.invalidAt(
        field,
        `${field} must be ${expected} (got ${JSON.stringify(value)}).`,
        words('input.refused.value', { what: field, got: String(JSON.stringify(value)), expected: EXPECTED[rule] }),
      );
    if (field === 'addressLines') {
      if (!Array.isArray(value) || value.length > 6 || value.some((line) => typeof line !== 'string' || line.length > 200))
        throw bad('at most 6 address lines of at most 200 characters each', 'addressLines');
    } else if (typeof value !== 'string') throw bad('text or null', 'textOrNull');
    else if (field === 'country' && !/^[A-Z]{2}$/.test(value))
      throw bad('an ISO 3166-1 alpha-2 code, upper case, such as DE', 'countryUpper');
    else if (field === 'email' && (value.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))) throw bad('an email address', 'email');
    else if (field === 'electronicAddressScheme' && value.length > 20) throw bad('an EAS code of at most 20 characters', 'easCode');
    else if (value.length > 200) throw bad('at most 200 characters', 'text200');
  }
  checkPartyText(input);
  const values = partyValues(input);
  checkParty(values, input);
  return values;
}

const taken = (name: string) => () => `A client named "${name}" exists already in this workspace.`;

/** Clients: the invoice recipients projects belong to. */
export function createClientsService({ clock, write, repo }: CatalogDeps) {
  return {
    list(actor: Actor, query: { archived?: boolean }): ClientView[] {
      return repo.clients(actor.workspaceId, query).map(clientView);
    },

    get(actor: Actor, id: string): ClientView {
      return clientView(repo.client(actor.workspaceId, id));
    },

    create(actor: Actor, input: Schemas['ClientCreate']): ClientView {
      const name = acceptedName(input.name);
      checkPartyInput(actor, input);
      const party = partyValues(input);
      checkParty(party, input);
      return write(
        (record) => {
          const row = repo.insertClient({ ...newNamedRow('cli', actor.workspaceId, name, clock.now()), ...party });
          const view = clientView(row);
          record(catalogEvent(actor, 'client', row.id, 'create', view));
          return view;
        },
        { conflict: taken(name), conflictField: 'name' },
      );
    },

    update(actor: Actor, id: string, patch: Schemas['ClientPatch']): ClientView {
      const name = patch.name === undefined ? undefined : acceptedName(patch.name);
      checkPartyInput(actor, patch);
      return write(
        (record) => {
          const stored = repo.client(actor.workspaceId, id);
          const party = partyValues(patch);
          checkParty({ ...stored, ...party }, patch);
          const values: Partial<typeof clients.$inferInsert> = { ...party, updatedAt: clock.now() };
          if (name !== undefined) Object.assign(values, { name, nameKey: nameKey(name) });
          if (patch.archived !== undefined) values.archived = patch.archived;
          const row = repo.updateClient(id, values);
          const view = clientView(row);
          record(catalogEvent(actor, 'client', id, 'update', view));
          return view;
        },
        { conflict: taken(name ?? ''), conflictField: 'name' },
      );
    },

    delete(actor: Actor, id: string): void {
      write(
        (record) => {
          repo.client(actor.workspaceId, id);
          if (repo.clientHasProjects(id)) throw catalogErrors.clientHasProjects(id);
          repo.deleteClient(id);
          record(catalogEvent(actor, 'client', id, 'delete', { id }));
        },
        { referenced: stillReferenced('client', id) },
      );
    },

    /** A client a project may be put under: in the workspace (else 404) and not archived (else 400). */
    usable(workspaceId: string, id: string | null | undefined): string | null {
      if (id === null || id === undefined) return null;
      const client = repo.client(workspaceId, id);
      if (client.archived) throw catalogErrors.clientArchived(id);
      return client.id;
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
