/**
 * The identifier schemes Peppol BIS 3.0 checks by their check digits wherever they appear
 * (PEPPOL-COMMON-R040 to R050: an electronic address, a party identifier, a legal registration):
 * the same arithmetic, so that a value Peppol's rules would reject is named before a document is
 * written. Pure.
 */

const digits = (value: string) => [...value].map(Number);

/** GS1 GLN (and any GS1 key): the last digit is the mod-10 check of the others, weights 3, 1, 3 … from the right. */
function gln(value: string): boolean {
  if (!/^\d{2,}$/.test(value)) return false;
  const d = digits(value);
  const check = d.pop() as number;
  const sum = d.reverse().reduce((s, n, i) => s + n * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Norway's organisation number: nine digits, mod 11 with weights 2 … 7 from the right. */
function norway(value: string): boolean {
  if (!/^\d{9}$/.test(value) || Number(value) === 0) return false;
  const d = digits(value);
  const check = d.pop() as number;
  const sum = d.reverse().reduce((s, n, i) => s + n * ((i % 6) + 2), 0);
  return (11 - (sum % 11)) % 11 === check;
}

/** Belgium's enterprise number: ten digits, the last two 97 − the first eight mod 97. */
function belgium(value: string): boolean {
  if (!/^\d{10}$/.test(value)) return false;
  return 97 - (Number(value.slice(0, 8)) % 97) === Number(value.slice(8));
}

/** Sweden's organisation number: ten digits, Luhn over the first nine. */
function sweden(value: string): boolean {
  if (!/^\d{10}$/.test(value)) return false;
  const d = digits(value.slice(0, 9)).reverse();
  const sum = d.reduce((s, n, i) => s + (i % 2 === 0 ? ((n * 2) % 10) + Math.floor((n * 2) / 10) : n), 0);
  return (10 - (sum % 10)) % 10 === Number(value[9]);
}

/** Australia's ABN: eleven digits, (first − 1) and the rest weighted 10, 1, 3 … 19, mod 89 = 0. */
function australia(value: string): boolean {
  if (!/^\d{11}$/.test(value)) return false;
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const d = digits(value);
  d[0] = (d[0] as number) - 1;
  return d.reduce((s, n, i) => s + n * (weights[i] as number), 0) % 89 === 0;
}

const CHECKS: Record<string, [test: (value: string) => boolean, what: string]> = {
  '0088': [gln, 'a GLN of GS1 (digits, the last one its check digit)'],
  '0192': [norway, 'a Norwegian organisation number (nine digits with a valid check digit)'],
  '0184': [(v) => /^(DK)?\d{8}$/.test(v), 'a Danish CVR number (eight digits, optionally after DK)'],
  '0208': [belgium, 'a Belgian enterprise number (ten digits, the last two its mod-97 check)'],
  '0007': [sweden, 'a Swedish organisation number (ten digits with a valid check digit)'],
  '0151': [australia, 'an Australian Business Number (eleven digits with valid check digits)'],
};

/** What is wrong with an identifier under its scheme, as Peppol's rules see it; null when nothing (or the scheme has no check). */
export function identifierProblem(scheme: string | null | undefined, value: string): string | null {
  const check = scheme ? CHECKS[scheme] : undefined;
  if (!check) return null;
  const [test, what] = check;
  return test(value.trim()) ? null : `is not ${what}`;
}
