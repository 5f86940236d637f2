// The checks behind `validate` (the command people run) and the tests' kept validator
// (test/einvoice/tools.ts): what each file claims, the manifest of (file, rule set) checks for
// Validate.java, and the answers read back into one report per file.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** Each rule set: a compiled schematron (xslt) or an XML schema (xsd), per syntax (UBL by its root). */
export const RULES = {
  'ubl-2.1-schema': {
    kind: 'xsd',
    Invoice: 'schemas/ubl-2.1/maindoc/UBL-Invoice-2.1.xsd',
    CreditNote: 'schemas/ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd',
  },
  'cii-d16b-schema': { kind: 'xsd', CII: 'schemas/cii-d16b/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd' },
  'facturx-en16931-schema': { kind: 'xsd', CII: 'schemas/facturx-en16931/FACTUR-X_EN16931.xsd' },
  en16931: { kind: 'xslt', CII: 'rules/en16931/EN16931-CII-validation.xslt', UBL: 'rules/en16931/EN16931-UBL-validation.xslt' },
  xrechnung: { kind: 'xslt', CII: 'rules/xrechnung/XRechnung-CII-validation.xsl', UBL: 'rules/xrechnung/XRechnung-UBL-validation.xsl' },
  peppol: { kind: 'xslt', UBL: 'rules/peppol/PEPPOL-EN16931-UBL.xsl' },
  'facturx-en16931': { kind: 'xslt', CII: 'rules/facturx/FACTUR-X_EN16931.xsl' },
};
export const SAXON = process.env.SAXON_JAR ?? ['/usr/share/java/Saxon-HE.jar', '/usr/share/java/saxon9he.jar'].find((p) => existsSync(p));

/** Why the checker cannot run here (Saxon-HE or a JDK missing), or null. */
export function missingTools() {
  if (!SAXON) return 'Saxon-HE not found. Install it: apt-get install -y default-jdk-headless libsaxonhe-java (or set SAXON_JAR).';
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (modules.status !== 0 || !/^jdk\.compiler@/m.test(modules.stdout))
    return 'a JDK is needed (Validate.java runs as a source file). Install it: apt-get install -y default-jdk-headless';
  return null;
}

/** The Java checker's command line: once over a whole manifest, or serving batches. */
export const javaArgs = (serve) => ['-Xss8m', '-cp', SAXON, join(here, 'Validate.java'), ...(serve ? ['--serve'] : [])];

/**
 * The PDF's checks; returns the path of its factur-x.xml (or null). Every PDF must declare a PDF/A
 * part and conformance in its XMP and embed every font. A PDF that claims Factur-X (its XMP
 * extension schema, or any attachment) must also be PDF/A-3 with factur-x.xml attached and
 * declared; one that claims neither is a plain PDF/A (`plain`): no XML, so no e-invoice rules.
 */
function readPdf(file, result, work, n) {
  const out = join(work, `pdf-${n}-${basename(file)}`);
  mkdirSync(out);
  const pdf = {
    attachments: [],
    part: null,
    conformance: null,
    partThree: false,
    facturXSchema: false,
    conformanceLevel: null,
    fontsNotEmbedded: [],
    plain: false,
  };
  result.pdf = pdf;
  try {
    execFileSync('pdfdetach', ['-saveall', '-o', out, file], { stdio: 'pipe' });
  } catch (e) {
    result.findings.push({
      id: 'PDF-ATTACH',
      flag: 'fatal',
      text: `pdfdetach could not read the file: ${String(e.stderr ?? e.message).trim()}`,
    });
    return null;
  }
  pdf.attachments = readdirSync(out);
  let meta = '';
  try {
    meta = execFileSync('pdfinfo', ['-meta', file], { stdio: 'pipe' }).toString();
  } catch {
    /* no metadata stream */
  }
  pdf.part = Number(/pdfaid:part(?:>|=")\s*([1-4])/.exec(meta)?.[1] ?? 0) || null;
  pdf.conformance = /pdfaid:conformance(?:>|=")\s*([ABUabu])/.exec(meta)?.[1]?.toUpperCase() ?? null;
  pdf.partThree = pdf.part === 3;
  pdf.facturXSchema = /urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#|urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#/.test(meta);
  pdf.conformanceLevel = /fx:ConformanceLevel(?:>|=")\s*([A-Z0-9 ]+)/.exec(meta)?.[1]?.trim() ?? null;
  const fonts = execFileSync('pdffonts', [file], { stdio: 'pipe' }).toString().split('\n').slice(2).filter(Boolean);
  // pdffonts columns: name type encoding emb sub uni object ID; "emb" is the fourth from the end.
  pdf.fontsNotEmbedded = fonts.filter((l) => l.trim().split(/\s+/).at(-5) !== 'yes').map((l) => l.trim().split(/\s+/)[0]);
  const need = (ok, id, text) => ok || result.findings.push({ id, flag: 'fatal', text });
  need(
    pdf.part !== null && pdf.conformance !== null,
    'PDFA-PART',
    'The XMP metadata does not declare a PDF/A part and conformance (pdfaid:part, pdfaid:conformance).',
  );
  need(pdf.fontsNotEmbedded.length === 0, 'PDFA-FONTS', `Fonts not embedded: ${pdf.fontsNotEmbedded.join(', ')}.`);
  // A plain PDF/A: it claims no Factur-X (no extension schema, nothing attached), so it carries no XML to check.
  pdf.plain = !pdf.facturXSchema && pdf.attachments.length === 0;
  if (pdf.plain) return null;
  need(
    pdf.partThree,
    'PDFA-PART',
    'The XMP metadata does not declare PDF/A part 3 (pdfaid:part 3), the part that allows the attached XML.',
  );
  need(pdf.facturXSchema, 'FX-XMP', 'The XMP metadata lacks the Factur-X (or ZUGFeRD 2) extension schema.');
  const name = pdf.attachments.find((n) => /^(factur-x|zugferd-invoice|xrechnung)\.xml$/.test(n));
  need(name, 'FX-ATTACH', `No factur-x.xml attached (attachments: ${pdf.attachments.join(', ') || 'none'}).`);
  return name ? join(out, name) : null;
}

// What each file claims: its syntax (by the root) and the specification it says it follows.
function claimsOf(xml, fromPdf) {
  const body = xml.replace(/<\?[^>]*\?>|<!--[\s\S]*?-->/g, '');
  const root = /<(?:[A-Za-z0-9_]+:)?(CrossIndustryInvoice|Invoice|CreditNote)[\s>]/.exec(body);
  if (!root) return null;
  if (root[1] === 'CrossIndustryInvoice') {
    const guideline = /<(?:\w+:)?GuidelineSpecifiedDocumentContextParameter>\s*<(?:\w+:)?ID>([^<]*)</.exec(body)?.[1]?.trim() ?? '';
    const rules = ['cii-d16b-schema', 'en16931'];
    if (guideline.includes('xeinkauf.de:kosit:xrechnung')) rules.push('xrechnung');
    if (fromPdf || guideline === 'urn:cen.eu:en16931:2017') rules.push('facturx-en16931-schema', 'facturx-en16931');
    return { syntax: 'CII', root: 'CII', rules };
  }
  const customization = /<(?:\w+:)?CustomizationID>([^<]*)</.exec(body)?.[1]?.trim() ?? '';
  const rules = ['ubl-2.1-schema', 'en16931'];
  if (customization.includes('xeinkauf.de:kosit:xrechnung')) rules.push('xrechnung');
  if (customization.includes('urn:fdc:peppol.eu:2017:poacc:billing:3.0')) rules.push('peppol');
  return { syntax: 'UBL', root: root[1], rules };
}

/**
 * Reads every file (a PDF's attachment and metadata with poppler) and lists one check per file and
 * rule set it claims. `results` holds one report per file; `manifest` is Validate.java's input.
 */
export function prepare(files) {
  const work = mkdtempSync(join(tmpdir(), 'einvoice-'));
  const results = new Map(files.map((f) => [f, { file: f, syntax: null, rules: [], findings: [], pdf: null }]));
  const jobs = [];
  let n = 0;
  for (const file of files) {
    const result = results.get(file);
    if (!existsSync(file)) {
      result.findings.push({ id: 'FILE', flag: 'fatal', text: 'No such file.' });
      continue;
    }
    const head = readFileSync(file).subarray(0, 5).toString();
    const fromPdf = head === '%PDF-';
    const xmlPath = fromPdf ? readPdf(file, result, work, n++) : file;
    if (!xmlPath) continue;
    const claims = claimsOf(readFileSync(xmlPath, 'utf8'), fromPdf);
    if (!claims) {
      result.findings.push({ id: 'SYNTAX', flag: 'fatal', text: 'Neither a UBL Invoice/CreditNote nor a CII CrossIndustryInvoice.' });
      continue;
    }
    result.syntax = claims.syntax;
    result.rules = claims.rules;
    for (const set of claims.rules) {
      const rules = RULES[set];
      const path = rules[claims.root] ?? rules[claims.syntax];
      jobs.push({ id: String(jobs.length), file, set, kind: rules.kind, rules: join(here, path), xml: xmlPath });
    }
  }
  const manifest = jobs.map((j) => [j.id, j.kind, j.rules, j.xml].join('\t')).join('\n');
  return { work, results, jobs, manifest, done: () => rmSync(work, { recursive: true, force: true }) };
}

const decode = (s) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Puts Validate.java's answer lines into the reports; throws when a check could not run. */
export function absorb(prepared, lines) {
  const { jobs, results } = prepared;
  const byId = new Map(jobs.map((j) => [j.id, j]));
  for (const line of lines.filter(Boolean)) {
    const answer = JSON.parse(line);
    const job = byId.get(answer.id);
    if (!answer.ok) throw new Error(`${job.set} could not check ${job.file}: ${answer.error}`);
    for (const f of answer.findings) {
      const text = decode(f.text);
      // Factur-X's rules carry their EN 16931 id in the text only: "[BR-CO-26]-In order …".
      const id = f.id ?? /^\[([A-Z0-9-]+)\]/.exec(text)?.[1] ?? null;
      results.get(job.file).findings.push({ rules: job.set, id, flag: f.flag, location: f.location, text });
    }
    byId.delete(answer.id);
  }
  if (byId.size > 0) throw new Error(`the Java checker gave no answer for ${byId.size} checks.`);
}

/** A finding that fails a document (not a warning or information). */
export const isFatal = (f) => f.flag !== 'warning' && f.flag !== 'information';
