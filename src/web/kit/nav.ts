import type { SessionView } from '../../modules/sessions/service.js';
import type { WebPaths } from '../paths.js';
import type { Key } from '../../i18n/index.js';

/** What the services decided a person may see, for the tabs that depend on it (asked once per page). */
export interface Grants {
  /** The invoices (owners and members who see colleagues' money: the invoices service decides). */
  invoices: boolean;
  /** The Approvals page (approvers, in a workspace with approval on: the approvals service decides). */
  approvals?: boolean;
}

/** A tab of an area's navigation, and who sees it. */
export interface Tab {
  id: string;
  /** Its label's key (the page says it in its reader's language). */
  label: Key;
  href: (paths: WebPaths) => string;
  shown?: (session: SessionView, grants: Grants) => boolean;
}

export type Area = 'app' | 'settings';

const owners = (s: SessionView) => s.isOwner;

/** The tabs of each area, in order; an area's last links lead to the other. */
export const NAV: Record<Area, readonly Tab[]> = {
  app: [
    { id: 'week', label: 'nav.week', href: (p) => `${p.app}/week` },
    { id: 'reports', label: 'nav.reports', href: (p) => `${p.app}/reports` },
    { id: 'catalog', label: 'nav.catalog', href: (p) => `${p.app}/catalog` },
    { id: 'invoices', label: 'nav.invoices', href: (p) => p.invoices, shown: (_s, grants) => grants.invoices },
    { id: 'approvals', label: 'nav.approvals', href: (p) => `${p.app}/approvals`, shown: (_s, grants) => grants.approvals === true },
    { id: 'expenses', label: 'nav.expenses', href: (p) => `${p.app}/expenses` },
    { id: 'profile', label: 'nav.profile', href: (p) => `${p.app}/profile` },
  ],
  // What a person needs first comes first: an owner's workspace and members; the API's tokens and webhooks after.
  settings: [
    { id: 'workspace', label: 'nav.workspace', href: (p) => `${p.settings}/workspace`, shown: owners },
    { id: 'members', label: 'nav.members', href: (p) => `${p.settings}/members`, shown: owners },
    { id: 'tokens', label: 'nav.tokens', href: (p) => `${p.settings}/tokens` },
    { id: 'webhooks', label: 'nav.webhooks', href: (p) => `${p.settings}/webhooks` },
    { id: 'import', label: 'nav.import', href: (p) => `${p.settings}/import`, shown: () => true },
    { id: 'mail', label: 'nav.mail', href: (p) => `${p.settings}/mail`, shown: owners },
  ],
};

/** The tabs a person sees in an area. */
export const tabsOf = (area: Area, session: SessionView, grants: Grants = { invoices: false }): readonly Tab[] =>
  NAV[area].filter((tab) => !tab.shown || tab.shown(session, grants));
