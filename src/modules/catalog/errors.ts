import { DomainError } from '../../errors.js';
import type { Words } from '../../i18n/index.js';

/** The refusals of the catalog module, worded once. */
export const catalogErrors = {
  clientHasProjects: (id: string) =>
    new DomainError('conflict', `Client ${id} still has projects; archive it instead.`, {
      people: 'This client still has projects, so it cannot be deleted: archive it instead (its projects keep it).',
    }),
  projectHasEntries: (id: string) =>
    new DomainError('conflict', `Project ${id} still has entries; archive it instead.`, {
      people: 'This project still has entries, so it cannot be deleted: archive it instead (its entries keep it).',
    }),
  taskHasEntries: (id: string) =>
    new DomainError('conflict', `Task ${id} still has entries; archive it instead.`, {
      people: 'This task still has entries, so it cannot be deleted: archive it instead (its entries keep it).',
    }),
  tagInUse: (id: string) =>
    new DomainError('conflict', `Tag ${id} is still used by entries.`, {
      people: 'This tag is still on entries, so it cannot be deleted: take it off them first.',
    }),
  /** A rate or a budget set, changed or cleared by someone who may not see them (issue 33 M5). */
  moneyHidden: (fields: string[]) =>
    new DomainError(
      'forbidden',
      `${fields.join(', ')}: setting a rate or a budget needs the visibility of colleagues' money, which you do not have. Leave ${fields.length > 1 ? 'them' : 'it'} out, or ask an owner.`,
      { field: fields[0] as string },
    ),
  /** A client's invoicing party or VAT treatment changed by someone who is neither an owner nor sees colleagues' money (issue 44, M2). */
  partyHidden: (fields: string[]) =>
    new DomainError(
      'forbidden',
      `${fields.join(', ')}: a client's invoicing details (who its invoices are addressed to, and their VAT) are changed by owners and by members who see colleagues' money only; nothing was changed. Leave ${fields.length > 1 ? 'them' : 'it'} out, or ask an owner.`,
      { field: fields[0] as string },
    ),
  clientArchived: (id: string) =>
    new DomainError('invalid', `clientId: client ${id} is archived; unarchive it first.`, {
      field: 'clientId',
      people: 'That client is archived: unarchive it first, or choose another.',
    }),
  projectArchived: (id: string) =>
    new DomainError('invalid', `projectId: project ${id} is archived; unarchive it first.`, {
      field: 'projectId',
      people: 'That project is archived: unarchive it first, or choose another.',
    }),
  invalid: (message: string) => new DomainError('invalid', message),
  /** A refusal of one input, at its field (pages show it there). */
  invalidAt: (field: string, message: string, words?: Words) =>
    new DomainError('invalid', message, { field, ...(words === undefined ? {} : { words }) }),
};
