import { createRequire } from 'node:module';
import type { Validator } from 'stdnum';
import { DomainError } from '../errors.js';
import { type Key, type Words, words } from '../i18n/index.js';

/*
 * The payment and party identifiers an invoice prints and an e-invoice routes by, checked where
 * they are entered (decisions 11a): an IBAN by its ISO 13616 check digits and its country's
 * length, a BIC by ISO 9362's form, a VAT identifier by its country's pattern and check digits, a Peppol
 * participant identifier (an electronic address with its EAS scheme) by what that scheme
 * identifies. One place: the business profile, the client's invoicing details, the command line
 * and the e-invoice fills all call these. Pure; each refusal says what is wrong and what a valid
 * value looks like. Values stored before a check existed are never re-checked on reading.
 */

/**
 * A refusal at `field`: the message for the API and the command line, the words a page shows (no
 * field name, no quotes): by key where they have one (said in the reader's language), else as written.
 */
const refuse = (field: string, message: string, people: string | Words, said?: Words) =>
  new DomainError('invalid', message, {
    field,
    ...(typeof people === 'string' ? { people } : { words: people }),
    ...(said === undefined ? {} : { words: said }),
  });

/** Letters and digits only, upper case: how identifiers are compared (spaces, dots, hyphens are how people group them). */
const compact = (value: string) => value.replace(/[\s.\-/]/g, '').toUpperCase();

/** The remainder mod 97 of a string of digits and letters (A = 10 … Z = 35), as ISO 7064 MOD 97-10 reads it. */
function mod97(text: string): number {
  let rest = 0;
  for (const ch of text) {
    const digits = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest;
}

/** IBAN lengths by country (the ISO 13616 register, SWIFT's IBAN Registry). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28,
  CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23,
  GL: 18, GR: 27, GT: 28, HN: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28,
  LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28,
  NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31, SD: 18, SE: 24,
  SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
}; // prettier-ignore

const IBAN_EXAMPLE =
  'An IBAN is its country code, two check digits and the account, such as DE89 3704 0044 0532 0130 00 (spaces may group it).';

/**
 * An IBAN (BT-84), checked by ISO 13616: its country's length and its check digits (the number
 * mod 97 is 1). Stored as the compact upper-case form e-invoices carry.
 */
export function checkIban(value: string, field = 'iban'): string {
  const iban = compact(value);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban))
    throw refuse(field, `${field} ${JSON.stringify(value)} is not an IBAN. ${IBAN_EXAMPLE}`, words('input.identifiers.ibanForm'));
  const country = iban.slice(0, 2);
  const length = IBAN_LENGTHS[country];
  if (length !== undefined && iban.length !== length)
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} has ${iban.length} characters, and an IBAN of ${country} has ${length}: a digit is missing or one too many. ${IBAN_EXAMPLE}`,
      words('input.identifiers.ibanLength', { length: iban.length, country, expected: length }),
    );
  if (mod97(iban.slice(4) + iban.slice(0, 4)) !== 1)
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} fails its check digits (ISO 13616): a digit is mistyped or two are swapped. Copy it from a bank statement. ${IBAN_EXAMPLE}`,
      words('input.identifiers.ibanDigits'),
    );
  return iban;
}

/** A BIC (BT-86): ISO 9362, 8 or 11 characters, bank code, country code, location, optional branch. Stored upper case. */
export function checkBic(value: string, field = 'bic'): string {
  const bic = value.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic))
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} is not a BIC: a BIC (ISO 9362) has 8 or 11 letters and digits, the bank's four letters, its country code, two for the place and optionally three for the branch, such as COBADEFFXXX or BYLADEM1.`,
      words('input.identifiers.bic'),
    );
  return bic;
}

/**
 * VAT identifiers by country (the prefix included), as the VIES and the national rules write
 * them, each with an example whose check digits hold (python-stdnum's documented examples,
 * DE136695976 among them). Greece uses EL; Switzerland's and Norway's carry their suffixes
 * optionally.
 */
const VAT_PATTERNS: Record<string, { pattern: RegExp; example: string }> = {
  AT: { pattern: /^ATU\d{8}$/, example: 'ATU13585627' },
  BE: { pattern: /^BE[01]\d{9}$/, example: 'BE0776091951' },
  BG: { pattern: /^BG\d{9,10}$/, example: 'BG175074752' },
  CY: { pattern: /^CY\d{8}[A-Z]$/, example: 'CY10259033P' },
  CZ: { pattern: /^CZ\d{8,10}$/, example: 'CZ25123891' },
  DE: { pattern: /^DE\d{9}$/, example: 'DE136695976' },
  DK: { pattern: /^DK\d{8}$/, example: 'DK13585628' },
  EE: { pattern: /^EE\d{9}$/, example: 'EE100931558' },
  EL: { pattern: /^EL\d{9}$/, example: 'EL094259216' },
  ES: { pattern: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/, example: 'ESA78304516' },
  FI: { pattern: /^FI\d{8}$/, example: 'FI20774740' },
  FR: { pattern: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/, example: 'FR40303265045' },
  HR: { pattern: /^HR\d{11}$/, example: 'HR33392005961' },
  HU: { pattern: /^HU\d{8}$/, example: 'HU12892312' },
  IE: { pattern: /^IE\d[A-Z0-9+*]\d{5}[A-W][A-I]?$/, example: 'IE6433435F' },
  IT: { pattern: /^IT\d{11}$/, example: 'IT00743110157' },
  LT: { pattern: /^LT(\d{9}|\d{12})$/, example: 'LT119511515' },
  LU: { pattern: /^LU\d{8}$/, example: 'LU15027442' },
  LV: { pattern: /^LV\d{11}$/, example: 'LV40003521600' },
  MT: { pattern: /^MT\d{8}$/, example: 'MT11679112' },
  NL: { pattern: /^NL\d{9}B\d{2}$/, example: 'NL000099998B57' },
  PL: { pattern: /^PL\d{10}$/, example: 'PL8567346215' },
  PT: { pattern: /^PT\d{9}$/, example: 'PT501964843' },
  RO: { pattern: /^RO\d{2,10}$/, example: 'RO18547290' },
  SE: { pattern: /^SE\d{10}01$/, example: 'SE123456789701' },
  SI: { pattern: /^SI\d{8}$/, example: 'SI15012557' },
  SK: { pattern: /^SK\d{10}$/, example: 'SK2021853504' },
  XI: { pattern: /^XI(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/, example: 'XI980780684' },
  GB: { pattern: /^GB(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/, example: 'GB980780684' },
  CH: { pattern: /^CHE\d{9}(MWST|TVA|IVA)?$/, example: 'CHE-100.155.212 MWST' },
  LI: { pattern: /^LI\d{5}$/, example: 'LI12345' },
  NO: { pattern: /^NO\d{9}(MVA)?$/, example: 'NO995525828MVA' },
};

/**
 * The check of each country's VAT identifier by its check digits: the module of `stdnum`
 * (stdnum-js, the maintained JavaScript port of python-stdnum; docs/design.md says why it and not
 * jsvat) and what of the compact identifier it reads. Loaded on first use, one country at a time
 * (all of stdnum would cost a process 115 ms more at start). Liechtenstein publishes no check
 * digits: its pattern alone.
 */
const VAT_CHECKS: Record<string, { module: string; value?: (vat: string) => string; unchecked?: RegExp }> = {
  AT: { module: 'at/uid' },
  BE: { module: 'be/vat' },
  // stdnum 1.12 refuses valid ten-digit numbers of persons (an ЕГН of a person born after 1939 is
  // refused by its first digit, python-stdnum's examples BG7111042925 …): their pattern alone.
  BG: { module: 'bg/vat', unchecked: /^BG\d{10}$/ },
  CY: { module: 'cy/vat' },
  // stdnum 1.12 refuses the valid nine-digit birth numbers of persons born before 1954
  // (python-stdnum's examples CZ640903926 …), which have no check digit: their pattern alone.
  CZ: { module: 'cz/dic', unchecked: /^CZ\d{9}$/ },
  DE: { module: 'de/vat' },
  DK: { module: 'dk/cvr' },
  EE: { module: 'ee/kmkr' },
  EL: { module: 'gr/vat' },
  ES: { module: 'es/nif' },
  FI: { module: 'fi/alv' },
  FR: { module: 'fr/tva' },
  HR: { module: 'hr/oib' },
  HU: { module: 'hu/anum' },
  IE: { module: 'ie/vat' },
  IT: { module: 'it/iva' },
  LT: { module: 'lt/pvm' },
  LU: { module: 'lu/tva' },
  LV: { module: 'lv/pvn' },
  MT: { module: 'mt/vat' },
  NL: { module: 'nl/btw' },
  PL: { module: 'pl/nip' },
  PT: { module: 'pt/nif' },
  RO: { module: 'ro/cif' },
  SE: { module: 'se/vat' },
  SI: { module: 'si/ddv' },
  SK: { module: 'sk/dph' },
  GB: { module: 'gb/vat' },
  // Northern Ireland's identifiers are the United Kingdom's numbers under XI.
  XI: { module: 'gb/vat', value: (vat) => vat.slice(2) },
  // The UID without the VAT suffix (MWST, TVA, IVA), which stdnum's VAT check would demand.
  CH: { module: 'ch/uid', value: (vat) => vat.replace(/(MWST|TVA|IVA)$/, '') },
  // The organisation number without MVA, which stdnum's VAT check would demand.
  NO: { module: 'no/orgnr', value: (vat) => vat.slice(2).replace(/MVA$/, '') },
};

const requireHere = createRequire(import.meta.url);
const validators = new Map<string, Validator>();

/** Whether a compact VAT identifier of `country`, of its pattern, holds its check digits; null where none are published. */
function vatCheckDigitsHold(country: string, vat: string): boolean | null {
  const check = VAT_CHECKS[country];
  if (!check || check.unchecked?.test(vat)) return null;
  let validator = validators.get(check.module);
  if (!validator) {
    validator = requireHere(`stdnum/lib/cjs/${check.module}.js`) as Validator;
    validators.set(check.module, validator);
  }
  return validator.validate(check.value ? check.value(vat) : vat).isValid;
}

/** A country's name as a person reads it (the VAT prefixes EL and XI are no region codes); its ICU table made on first use. */
let regionNames: Intl.DisplayNames | undefined;
const SPOKEN_NAMES: Record<string, string> = {
  EL: 'Greece',
  XI: 'Northern Ireland',
  NL: 'the Netherlands',
  GB: 'the United Kingdom',
  CZ: 'Czechia',
};
const countryName = (code: string): string =>
  SPOKEN_NAMES[code] ?? (regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' })).of(code) ?? code;

/**
 * A VAT identifier (BT-31, BT-48): its country's code first (EN 16931 BR-CO-9), then that
 * country's pattern (the EU's, the UK's, Switzerland's, Norway's, Liechtenstein's), then its check
 * digits by the country's own rule (decisions 14: DE123456789 has the form of a German one, and
 * no German one is it); another country's is taken by its form (2 to 15 letters and digits after
 * the code). Stored compact and upper case, as VIES and the e-invoices write it.
 */
export function checkVatId(value: string, field = 'vatId'): string {
  const vat = compact(value);
  const country = vat.slice(0, 2);
  if (!/^[A-Z]{2}/.test(vat))
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} does not start with a country code: a VAT identifier starts with its country's two letters, such as DE136695976 (Germany), ATU13585627 (Austria) or FR40303265045 (France). A tax number without a country code is not a VAT identifier: give it as the tax number instead.`,
      words('input.identifiers.vatCountry'),
    );
  if (country === 'GR')
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)}: a Greek VAT identifier starts with EL, not GR (EL094259216).`,
      words('input.identifiers.vatGreek'),
    );
  const known = VAT_PATTERNS[country];
  if (known && !known.pattern.test(vat))
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} is not a VAT identifier of ${country}: one looks like ${known.example}. Check for a missing or extra digit.`,
      words('input.identifiers.vatPattern', { country, example: known.example }),
    );
  if (!known && !/^[A-Z]{2}[A-Z0-9]{2,15}$/.test(vat))
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} is not a VAT identifier: its country's two letters, then 2 to 15 letters and digits, such as DE136695976.`,
      words('input.identifiers.vatForm'),
    );
  if (known && vatCheckDigitsHold(country, vat) === false)
    throw refuse(
      field,
      `${field} ${JSON.stringify(value)} fails the check digits of a VAT identifier of ${country}: a digit is mistyped or two are swapped (one that holds them looks like ${known.example}). Copy it from the party's invoice or letterhead, or check it in the EU's VIES (https://ec.europa.eu/taxation_customs/vies/).`,
      words('input.identifiers.vatDigits', { country }),
    );
  return vat;
}

/** The EAS codes (CEF's Electronic Address Scheme list, as EN 16931's BR-CL-25 checks it). */
export const EAS_CODES: ReadonlySet<string> = new Set(
  (
    '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0147 0151 0154 0158 0170 0177 0183 0184 0188 0190 0191 0192 ' +
    '0193 0194 0195 0196 0198 0199 0200 0201 0202 0203 0204 0205 0208 0209 0210 0211 0212 0213 0215 0216 0217 0218 0219 0220 ' +
    '0221 0225 0230 0235 0240 0242 0244 0245 0246 0248 9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 9926 9927 9928 ' +
    '9929 9930 9931 9932 9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 9951 9952 ' +
    '9953 9957 9959 AN AQ AS AU EM'
  ).split(' '),
);

/** The EAS schemes that are a country's VAT identifier (the value with or without its country code). */
const VAT_SCHEMES: Record<string, string> = {
  '9910': 'HU', '9914': 'AT', '9920': 'ES', '9922': 'AD', '9923': 'AL', '9924': 'BA', '9925': 'BE', '9926': 'BG', '9927': 'CH',
  '9928': 'CY', '9929': 'CZ', '9930': 'DE', '9931': 'EE', '9932': 'GB', '9933': 'EL', '9934': 'HR', '9935': 'IE', '9936': 'LI',
  '9937': 'LT', '9938': 'LU', '9939': 'LV', '9940': 'MC', '9941': 'ME', '9942': 'MK', '9943': 'MT', '9944': 'NL', '9945': 'PL',
  '9946': 'PT', '9947': 'RO', '9948': 'RS', '9949': 'SI', '9950': 'SK', '9951': 'SM', '9952': 'TR', '9953': 'VA', '9957': 'FR',
}; // prettier-ignore

/** GS1's check digit (GLN, GTIN): weights 3 and 1 from the right, the total a multiple of 10. */
function gs1Valid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (i % 2 === 1 ? 3 : 1);
  return sum % 10 === 0;
}

/** Luhn's check digit (SIRENE, SIRET, Swedish organisation numbers). */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Norway's organisation number: MOD 11 with weights 3 2 7 6 5 4 3 2. */
function norwegianValid(digits: string): boolean {
  const weights = [3, 2, 7, 6, 5, 4, 3, 2];
  const sum = weights.reduce((n, w, i) => n + w * Number(digits[i]), 0);
  const check = (11 - (sum % 11)) % 11;
  return check !== 10 && check === Number(digits[8]);
}

/** What an address of a scheme looks like, by key (the words of participantRule). */
const LOOKS: Record<string, Key> = {
  EM: 'input.identifiers.looks.EM',
  '0002': 'input.identifiers.looks.0002',
  '0007': 'input.identifiers.looks.0007',
  '0009': 'input.identifiers.looks.0009',
  '0060': 'input.identifiers.looks.0060',
  '0088': 'input.identifiers.looks.0088',
  '0106': 'input.identifiers.looks.0106',
  '0151': 'input.identifiers.looks.0151',
  '0184': 'input.identifiers.looks.0184',
  '0190': 'input.identifiers.looks.0190',
  '0192': 'input.identifiers.looks.0192',
  '0204': 'input.identifiers.looks.0204',
  '0208': 'input.identifiers.looks.0208',
  '0211': 'input.identifiers.looks.0211',
  '9959': 'input.identifiers.looks.9959',
};

/** What a scheme's identifier must look like: a test and how a person recognises a valid one. */
const PARTICIPANT_RULES: Record<string, { test: (id: string) => boolean; looks: string }> = {
  EM: { test: (id) => id.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(id), looks: 'an email address, such as invoices@example.com' },
  '0002': { test: (id) => /^\d{9}$/.test(id) && luhnValid(id), looks: 'a SIREN number: 9 digits with a valid check digit' },
  '0007': { test: (id) => /^\d{10}$/.test(id), looks: 'a Swedish organisation number: 10 digits, such as 5567321707' },
  '0009': { test: (id) => /^\d{14}$/.test(id) && luhnValid(id), looks: 'a SIRET number: 14 digits with a valid check digit' },
  '0060': { test: (id) => /^\d{9}$/.test(id), looks: 'a DUNS number: 9 digits' },
  '0088': {
    test: (id) => /^\d{13}$/.test(id) && gs1Valid(id),
    looks: 'a GLN: 13 digits whose last is the GS1 check digit, such as 4000001000005',
  },
  '0106': { test: (id) => /^\d{8}$/.test(id), looks: 'a Dutch KvK number: 8 digits' },
  '0151': { test: (id) => /^\d{11}$/.test(id), looks: 'an Australian ABN: 11 digits' },
  '0184': { test: (id) => /^(DK)?\d{8}(\d{2})?$/.test(id), looks: 'a Danish CVR number: 8 digits (10 with a P-unit)' },
  '0190': { test: (id) => /^\d{20}$/.test(id), looks: 'a Dutch OIN: 20 digits' },
  '0192': {
    test: (id) => /^\d{9}$/.test(id) && norwegianValid(id),
    looks: 'a Norwegian organisation number: 9 digits with a valid check digit, such as 987654325',
  },
  '0204': {
    test: (id) => /^\d{2,12}(-[A-Z0-9]{1,30})?-\d{2}$/i.test(id) && mod97(id.replace(/-/g, '').toUpperCase()) === 1,
    looks:
      'a Leitweg-ID: the coarse address (2 to 12 digits), optionally the fine address, and two check digits, separated by hyphens, such as 04011000-12345-03 (ISO 7064 MOD 97-10)',
  },
  '0208': {
    test: (id) => /^[01]\d{9}$/.test(id) && 97 - (Number(id.slice(0, 8)) % 97) === Number(id.slice(8)),
    looks: 'a Belgian enterprise number: 10 digits without BE, such as 0123456749, the last two the check digits',
  },
  '0211': { test: (id) => /^(IT)?\d{11}$/.test(id), looks: 'an Italian partita IVA: 11 digits' },
  '9959': { test: (id) => /^\d{2}-?\d{7}$/.test(id), looks: 'a US EIN: 9 digits, such as 12-3456789' },
};

/**
 * An electronic address (BT-34, BT-49) with its EAS scheme (BT-34-1, BT-49-1), checked by what
 * the scheme identifies: a Leitweg-ID by its check digits, a GLN by GS1's, a VAT scheme as that
 * country's VAT identifier (its pattern and check digits), an email address by its form. The scheme
 * written in front of the address (9930:DE136695976, as Peppol writes participant identifiers) is
 * refused, saying to give it as the scheme. A scheme that is no EAS code is refused;
 * the schemes without a rule here take any identifier of up to 100 characters without spaces.
 * Without a scheme, an email address is read as EM (what the documents do) and anything else
 * waits for its scheme (the documents name it missing). Returns the address as stored.
 */
export function checkParticipantId(
  address: string,
  scheme: string | null,
  fields = { address: 'electronicAddress', scheme: 'electronicAddressScheme' },
): string {
  const id = address.trim();
  const code = scheme?.trim().toUpperCase() ?? null;
  // The scheme written in front, as Peppol's participant identifiers are (9930:DE136695976): it has a field of its own.
  const prefixed = /^(\d{4}|EM)\s*:\s*(.+)$/i.exec(id);
  if (prefixed && EAS_CODES.has((prefixed[1] as string).toUpperCase()))
    throw refuse(
      fields.address,
      `${fields.address} ${JSON.stringify(address)} carries its scheme in front: give the scheme ${(prefixed[1] as string).toUpperCase()} as ${fields.scheme} and the address without it (${prefixed[2] as string}).`,
      `Enter the scheme ${(prefixed[1] as string).toUpperCase()} in the scheme field, and here the address alone, without “${prefixed[1] as string}:” (${prefixed[2] as string}).`,
      words('input.identifiers.participantPrefixed', {
        scheme: (prefixed[1] as string).toUpperCase(),
        prefix: prefixed[1] as string,
        rest: prefixed[2] as string,
      }),
    );
  if (code === null) return id;
  if (!EAS_CODES.has(code))
    throw refuse(
      fields.scheme,
      `${fields.scheme} ${JSON.stringify(scheme)} is not an EAS code (the Electronic Address Scheme list e-invoices use): give 0204 for a Leitweg-ID, 9930 for a German VAT identifier, 0088 for a GLN, 0208 for a Belgian enterprise number, 0192 for a Norwegian organisation number, or EM for an email address.`,
      'This is not a scheme of electronic addresses (an EAS code): 0204 for a Leitweg-ID, 9930 for a German VAT ID, 0088 for a GLN, 0208 for a Belgian enterprise number, 0192 for a Norwegian organisation number, or EM for an email address.',
      words('input.identifiers.participantScheme'),
    );
  const country = VAT_SCHEMES[code];
  if (country !== undefined) {
    const vat = compact(id);
    const whole = vat.startsWith(country) ? vat : `${country}${vat}`;
    const example = VAT_PATTERNS[country]?.example ?? `${country}…`;
    const formed = VAT_PATTERNS[country]?.pattern.test(whole) ?? /^[A-Z]{2}[A-Z0-9]{2,15}$/.test(whole);
    try {
      checkVatId(whole, fields.address);
    } catch {
      const name = countryName(country);
      throw refuse(
        fields.address,
        formed
          ? `${fields.address} ${JSON.stringify(address)} fails the check digits of a VAT identifier of ${country}, which scheme ${code} names: a digit is mistyped or two are swapped (one that holds them looks like ${example}).`
          : `${fields.address} ${JSON.stringify(address)} is not a VAT identifier of ${country}, which scheme ${code} names: one looks like ${example}.`,
        formed
          ? `Scheme ${code} is a VAT ID of ${name}, and this one’s check digits do not match: a digit is mistyped or two are swapped. Copy it from an invoice or letter of theirs.`
          : `Scheme ${code} is a VAT ID of ${name}: one looks like ${example}.`,
        formed
          ? words('input.identifiers.participantVatDigits', { scheme: code, country })
          : words('input.identifiers.participantVatForm', { scheme: code, country, example }),
      );
    }
    return id;
  }
  const rule = PARTICIPANT_RULES[code];
  if (rule && !rule.test(id))
    throw refuse(
      fields.address,
      `${fields.address} ${JSON.stringify(address)} is not valid for scheme ${code}: give ${rule.looks}.`,
      `This is not an address of scheme ${code}: give ${rule.looks}.`,
      words('input.identifiers.participantRule', { scheme: code, looks: LOOKS[code] ?? code }),
    );
  if (!rule && !/^\S{1,100}$/.test(id))
    throw refuse(
      fields.address,
      `${fields.address} ${JSON.stringify(address)}: an identifier of scheme ${code} has 1 to 100 characters and no spaces.`,
      `An address of scheme ${code} has 1 to 100 characters and no spaces.`,
      words('input.identifiers.participantAny', { scheme: code }),
    );
  return id;
}
