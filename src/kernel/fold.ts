/**
 * The folding of description search, on both sides: the pattern, and each description as the
 * search index stores it and the exact check compares it (SQL function tt_fold, registered on
 * every connection). NFC first, so a composed and a decomposed "é" are one.
 */
export const fold = (text: string): string => text.normalize('NFC').toLowerCase();
