import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import type { Html } from '../kit/html.js';
import { type Notice, page } from '../kit/layout.js';

/** The app's pages, by their tab. */
export type AppPageId = 'week' | 'reports' | 'catalog' | 'invoices' | 'approvals' | 'expenses' | 'profile';

/** An app page: the app's navigation, the live status, the workspace switcher; the body brings its own heading. */
export function appPage(
  deps: Pick<WebDeps, 'paths' | 'services'>,
  session: SessionView,
  options: { title: string; current: AppPageId; body: Html; askZone?: boolean; documentTitle?: string; notice?: Notice | null },
): string {
  return page(deps.paths, {
    ...options,
    area: 'app',
    heading: false,
    session,
    workspaces: deps.services.sessions.memberships(session.userId).map((w) => ({ workspaceId: w.workspaceId, name: w.name })),
    theme: deps.services.accounts.preferences(session.userId).theme,
    grants: {
      invoices: deps.services.invoices.visible(session.actor, session.workspaceId),
      approvals: deps.services.approvals.approves(session.actor),
    },
  });
}
