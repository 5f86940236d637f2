import { newId } from '../../ids.js';
import { requireSafeText } from '../../kernel/input.js';

/** The stored form of a catalog name, and the key that makes names unique case-insensitively. */
export function cleanName(name: string): string {
  return name.trim().normalize('NFC');
}

export function nameKey(name: string): string {
  return cleanName(name).toLowerCase();
}

/** A name as a client of the API or the page gives it: refused when it holds a control or bidirectional character, else cleaned. */
export function acceptedName(name: string): string {
  // Trimmed first, as stored: white space at either end (a trailing line break) is not part of the name.
  return requireSafeText(cleanName(name), 'name', 'name');
}

/** A new catalog row's own columns: a new id of its kind, its workspace, its name with its key, made (and last changed) now. */
export function newNamedRow(prefix: string, workspaceId: string, name: string, now: number) {
  return { id: newId(prefix), workspaceId, name, nameKey: nameKey(name), createdAt: now, updatedAt: now };
}
