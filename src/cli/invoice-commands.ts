import type { Command } from './commands.js';

/** `invoice …` and `workspace profile` commands (placeholder until the invoices service lands). */
export const invoiceCommands: Record<string, Command> = {};
