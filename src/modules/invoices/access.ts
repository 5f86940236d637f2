import type { Clock } from '../../clock.js';
import { isOperator, type Principal } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import { invoiceErrors as errors, type OwnerAct } from './errors.js';
import type { InvoicePorts } from './ports.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';

/** Who acts in a call: the member, and the token they act through (null for a session or the command line). */
export interface Acting {
  userId: string;
  tokenId: string | null;
}

/** A member's standing in a workspace, as the rule of who reads invoices needs it. */
export interface InvoiceReader {
  isOwner: boolean;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
}

/**
 * Who reads a workspace's invoices (decisions §11, issue 44 L2, issue 45 item 6): the one rule the
 * pages, the command line's members, the live feed and the webhook sender all ask. An invoice is
 * colleagues' money (rates, amounts), so nobody reads one without `canViewOthersMoney`, owners
 * included: the specification withholds every `invoice.*` webhook from a subscription owner
 * without it, and the pages, the live feed and the other channels say the same. An invoice
 * grouped by entry also shows colleagues' days, descriptions and hours, so a member who is not an
 * owner needs `canViewOthersTime` too (Reports withhold those from them); an owner makes the
 * invoices from everyone's time and reads them with money visibility alone.
 */
export const readsInvoices = (member: InvoiceReader): boolean => member.canViewOthersMoney && (member.isOwner || member.canViewOthersTime);

/**
 * Who may do what with invoices (decisions §11): owners create, issue, mark paid, void, fill and
 * send; `readsInvoices` says who reads; anyone else finds nothing, as if there were no invoices.
 * The operator may do everything, naming the member who acts.
 */
export function createAccess({ repo, ports }: { repo: InvoicesRepository; ports: InvoicePorts }) {
  const mayRead = (principal: Principal, workspaceId: string): boolean =>
    isOperator(principal) || (principal.workspaceId === workspaceId && readsInvoices(principal));
  return {
    mayRead,

    /** Owners who read invoices (and the operator) act; a reader who is no owner is refused; anyone else sees nothing. */
    requireOwner(principal: Principal, workspaceId: string, what: OwnerAct, hidden: () => Error): void {
      if (!mayRead(principal, workspaceId)) throw hidden();
      if (!isOperator(principal) && !principal.isOwner) throw errors.ownersAct(what);
    },

    /**
     * The workspace's invoicing settings and series (not an invoice): its owners, whatever they may
     * see, and the operator; a member who reads invoices is refused; anyone else sees nothing.
     */
    requireSettingsOwner(principal: Principal, workspaceId: string, what: OwnerAct): void {
      if (isOperator(principal) || (principal.workspaceId === workspaceId && principal.isOwner)) return;
      if (mayRead(principal, workspaceId)) throw errors.ownersAct(what);
      throw errors.hidden(workspaceId);
    },

    /** The member who acts: a member's own principal, or the member the operator names. */
    actingMember(principal: Principal, workspaceId: string, userId: string | undefined): Acting {
      if (!isOperator(principal)) return { userId: principal.userId, tokenId: principal.tokenId };
      if (userId === undefined) throw errors.actingMember();
      if (!ports.membership(workspaceId, userId)) throw errors.memberNotFound(workspaceId, userId);
      return { userId, tokenId: null };
    },

    /** An invoice the principal may read; one it may not is one that does not exist. */
    findInvoice(principal: Principal, id: string): InvoiceRow {
      const row = repo.invoice(id);
      if (!row || !mayRead(principal, row.workspaceId)) throw errors.notFound(id);
      return row;
    },
  };
}

export type Access = ReturnType<typeof createAccess>;

/** What the pages ask before they show a tab, a form or an action: the same rules as the calls themselves. */
export function guards({ mayRead, requireOwner }: Access) {
  return {
    /** Whether the principal sees the workspace's invoices at all (the web app shows its Invoices tab by this). */
    visible(principal: Principal, workspaceId: string): boolean {
      return mayRead(principal, workspaceId);
    },
    /** Whether the principal may make, issue, mark paid, void, fill and send the workspace's invoices (pages offer those actions by this). */
    mayManage(principal: Principal, workspaceId: string): boolean {
      return mayRead(principal, workspaceId) && (isOperator(principal) || principal.isOwner);
    },
    /** Refuses, as making one would, whoever may not make invoices in the workspace (the New invoice page asks before it shows its form). */
    requireMaker(principal: Principal, workspaceId: string): void {
      requireOwner(principal, workspaceId, 'make invoices', () => errors.hidden(workspaceId));
    },
  };
}

/** What the parts of the invoice service that move an invoice (its lifecycle, its payments) are made of. */
export interface InvoiceMoveParts {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  write: DomainWrite;
  access: Access;
  defaultTimeZone: string;
}
