import type { Command } from './command.js';

/** `invoice …` and `workspace profile` commands (placeholder until the invoices service lands). */
export const invoiceCommands: Record<string, Command> = {};
