import type { SessionView } from '../../modules/sessions/service.js';
import type { WebPaths } from '../paths.js';

/** What the services decided a person may see, for the tabs that depend on it (asked once per page). */
export interface Grants {
  /** The invoices (owners and members who see colleagues' money: the invoices service decides). */
  invoices: boolean;
}

/** A tab of an area's navigation, and who sees it. */
export interface Tab {
  id: string;
  label: string;
  href: (paths: WebPaths) => string;
  shown?: (session: SessionView, grants: Grants) => boolean;
}

export type Area = 'app' | 'settings';

const owners = (s: SessionView) => s.isOwner;

/** The tabs of each area, in order; an area's last links lead to the other. */
export const NAV: Record<Area, readonly Tab[]> = {
  app: [
    { id: 'week', label: 'Week', href: (p) => `${p.app}/week` },
    { id: 'reports', label: 'Reports', href: (p) => `${p.app}/reports` },
    { id: 'catalog', label: 'Catalog', href: (p) => `${p.app}/catalog` },
    { id: 'invoices', label: 'Invoices', href: (p) => p.invoices, shown: (_s, grants) => grants.invoices },
    { id: 'profile', label: 'Profile', href: (p) => `${p.app}/profile` },
  ],
  // What a person needs first comes first: an owner's workspace and members; the API's tokens and webhooks after.
  settings: [
    { id: 'workspace', label: 'Workspace', href: (p) => `${p.settings}/workspace`, shown: owners },
    { id: 'members', label: 'Members', href: (p) => `${p.settings}/members`, shown: owners },
    { id: 'tokens', label: 'API tokens', href: (p) => `${p.settings}/tokens` },
    { id: 'webhooks', label: 'Webhooks', href: (p) => `${p.settings}/webhooks` },
    { id: 'import', label: 'Import', href: (p) => `${p.settings}/import`, shown: () => true },
    { id: 'mail', label: 'Mail', href: (p) => `${p.settings}/mail`, shown: owners },
  ],
};

/** The tabs a person sees in an area. */
export const tabsOf = (area: Area, session: SessionView, grants: Grants = { invoices: false }): readonly Tab[] =>
  NAV[area].filter((tab) => !tab.shown || tab.shown(session, grants));
