import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The programs the e-invoice tests run: the official rules and schemas through `validate` (its
 * checker Validate.java on a JDK, with Saxon-HE) and poppler-utils. `npm test`'s pretest
 * installs them (scripts/ensure-einvoice-tools.sh); where they are missing the tests fail saying
 * what to install: a run that did not validate must never look green.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
export const VALIDATE = join(HERE, 'validate');
const INSTALL = 'apt-get install -y default-jdk-headless libsaxonhe-java poppler-utils';

const onPath = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};

/** A `java` that can run a source file (a JDK: the jdk.compiler module). */
const hasJdk = () => {
  try {
    return /^jdk\.compiler@/m.test(execFileSync('java', ['--list-modules'], { stdio: 'pipe' }).toString());
  } catch {
    return false;
  }
};

/** Throws, naming what to install, unless a JDK, Saxon-HE and poppler-utils are all there. */
export function requireTools(): void {
  const missing: string[] = [];
  if (!hasJdk()) missing.push('a JDK (default-jdk-headless)');
  const saxon = process.env.SAXON_JAR ?? ['/usr/share/java/Saxon-HE.jar', '/usr/share/java/saxon9he.jar'].find((p) => existsSync(p));
  if (!saxon) missing.push('Saxon-HE (libsaxonhe-java)');
  for (const tool of ['pdftotext', 'pdffonts', 'pdfdetach', 'pdfinfo', 'pdftoppm'])
    if (!onPath(tool)) missing.push(`${tool} (poppler-utils)`);
  if (missing.length > 0)
    throw new Error(`The e-invoice tests cannot validate: ${missing.join(', ')} missing. Install them as root: ${INSTALL}`);
}

export interface Finding {
  rules?: string;
  id: string | null;
  flag: string;
  location?: string | null;
  text: string;
}
/** The rule sets `validate` knows, each run on the documents that claim it. */
export type RuleSet =
  'ubl-2.1-schema' | 'cii-d16b-schema' | 'facturx-en16931-schema' | 'en16931' | 'xrechnung' | 'peppol' | 'facturx-en16931';

export interface FileReport {
  file: string;
  syntax: 'UBL' | 'CII' | null;
  /** The rule sets this file was checked against (what it claims). */
  rules: RuleSet[];
  findings: Finding[];
  pdf: {
    attachments: string[];
    partThree: boolean;
    facturXSchema: boolean;
    conformanceLevel: string | null;
    fontsNotEmbedded: string[];
  } | null;
}

/**
 * Runs `validate --json` over many files in ONE Java start: each file against every rule set it
 * claims (its schema, EN 16931, and XRechnung's, Peppol's or Factur-X's rules). The second
 * argument is kept for old callers and ignored: the rule sets follow from each document.
 */
export function validate(files: string[], _xrechnung?: boolean): Promise<{ rules: RuleSet[]; files: Map<string, FileReport> }> {
  const args = [VALIDATE, '--json', ...files];
  return new Promise((resolve, reject) => {
    execFile('node', args, { maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) => {
      // Exit 1 is "some file has a fatal finding", which the tests read; 2 is "could not run".
      if (error && error.code !== 1)
        return reject(new Error(`validate could not run (exit ${String(error.code)}): ${stderr || error.message}`));
      try {
        const report = JSON.parse(stdout) as { rules: RuleSet[]; files: FileReport[] };
        resolve({ rules: report.rules, files: new Map(report.files.map((f) => [f.file, f])) });
      } catch (e) {
        reject(new Error(`validate printed no report: ${(e as Error).message}\n${stderr}`));
      }
    });
  });
}

/** Findings that fail a document (as validate counts them: not warnings or information). */
export const fatal = (report: FileReport | undefined): string[] =>
  (report?.findings ?? []).filter((f) => f.flag !== 'warning' && f.flag !== 'information').map((f) => `${f.id}: ${f.text}`);

/** A poppler tool's output as text. */
export const poppler = (tool: string, ...args: string[]): string =>
  execFileSync(tool, args, { stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 }).toString();
