import { isOperator, type Principal } from '../../principal.js';
import { invoiceErrors as errors } from './errors.js';
import type { InvoicePorts } from './ports.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';

/** Who acts in a call: the member, and the token they act through (null for a session or the command line). */
export interface Acting {
  userId: string;
  tokenId: string | null;
}

/**
 * Who may do what with invoices (decisions §11): owners create, issue, mark paid, void and fill;
 * owners and members who see colleagues' money read; anyone else finds nothing, as if there were
 * no invoices. The operator may do everything, naming the member who acts.
 */
export function createAccess({ repo, ports }: { repo: InvoicesRepository; ports: InvoicePorts }) {
  const mayRead = (principal: Principal, workspaceId: string): boolean =>
    isOperator(principal) || (principal.workspaceId === workspaceId && (principal.isOwner || principal.canViewOthersMoney));
  return {
    mayRead,

    /** Owners (and the operator) act; a reader who is no owner is refused; anyone else sees nothing. */
    requireOwner(principal: Principal, workspaceId: string, what: string, hidden: () => Error): void {
      if (!mayRead(principal, workspaceId)) throw hidden();
      if (!isOperator(principal) && !principal.isOwner) throw errors.ownersAct(what);
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
    /** Whether the principal may make, issue, mark paid, void and fill the workspace's invoices (pages offer those actions by this). */
    mayManage(principal: Principal, workspaceId: string): boolean {
      return mayRead(principal, workspaceId) && (isOperator(principal) || principal.isOwner);
    },
    /** Refuses, as making one would, whoever may not make invoices in the workspace (the New invoice page asks before it shows its form). */
    requireMaker(principal: Principal, workspaceId: string): void {
      requireOwner(principal, workspaceId, 'make invoices', () => errors.hidden(workspaceId));
    },
  };
}
