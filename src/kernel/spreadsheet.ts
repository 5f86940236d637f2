/**
 * Text a spreadsheet would run as a formula (CSV injection), written once for every CSV this
 * server writes: its first non-space character is `=`, `+`, `-` or `@`, or one of their
 * full-width forms (＝ ＋ － ＠, which spreadsheets with an East Asian input method read as
 * those), or it begins with a tab or a carriage return (OWASP's list, widened in issue 44: Excel
 * and LibreOffice skip leading spaces before a formula). A CSV writes such text after a `'`.
 */
const START = String.raw`(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])`;

/** The text begins as a formula would. */
export const FORMULA_START = new RegExp(`^${START}`);

/**
 * The same after any number of `'`: a format whose import takes one `'` off (the timetrack
 * format) prefixes such text again, so that the undoing is exact.
 */
export const QUOTED_FORMULA_START = new RegExp(`^'*${START}`);

/** A cell the timetrack export prefixed: one or more `'`, then a formula's start. */
export const PREFIXED_FORMULA_START = new RegExp(`^'+${START}`);
