import type { Router } from 'express';
import type { WebArea, WebDeps } from '../deps.js';
import { importPages } from './imports.js';
import { mailPages } from './mail.js';
import { memberPages } from './members.js';
import { tokenPages } from './tokens.js';
import { webhookPages } from './webhooks.js';
import { workspacePages } from './workspace.js';

/** The settings (under SETTINGS_PATH): API tokens, webhooks, members, the workspace, imports, mail; each page for a signed-in member. */
export const settingsArea: WebArea = {
  base: (deps) => deps.paths.settings,
  routes(router: Router, deps: WebDeps): void {
    tokenPages(router, deps);
    webhookPages(router, deps);
    memberPages(router, deps);
    workspacePages(router, deps);
    importPages(router, deps);
    mailPages(router, deps);
  },
};
