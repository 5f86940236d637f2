import type { Command } from './commands.js';

/** `webhook …` commands (placeholder until the webhooks service lands). */
export const webhookCommands: Record<string, Command> = {};
