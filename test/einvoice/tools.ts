import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The programs the e-invoice tests run: the official rules through `validate` (Java + Saxon-HE)
 * and poppler-utils. `npm test`'s pretest installs them (scripts/ensure-einvoice-tools.sh);
 * where they are missing the tests fail saying what to install: a run that did not validate must
 * never look green.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
export const VALIDATE = join(HERE, 'validate');
/** UN/CEFACT's CII D16B schema, as CEN distributes it beside the EN 16931 rules (README.md). */
export const CII_SCHEMA = join(HERE, 'schemas/cii-d16b/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd');
const INSTALL = 'apt-get install -y default-jre-headless libsaxonhe-java poppler-utils libxml2-utils';

const onPath = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};

/** Throws, naming what to install, unless Java, Saxon-HE and poppler-utils are all there. */
export function requireTools(): void {
  const missing: string[] = [];
  if (!onPath('java')) missing.push('java (default-jre-headless)');
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
export interface FileReport {
  file: string;
  syntax: 'UBL' | 'CII' | null;
  findings: Finding[];
  pdf: {
    attachments: string[];
    partThree: boolean;
    facturXSchema: boolean;
    conformanceLevel: string | null;
    fontsNotEmbedded: string[];
  } | null;
}

/** Runs `validate --json` (with `--xrechnung`: EN 16931 and XRechnung) over many files in one go. */
export function validate(files: string[], xrechnung: boolean): Promise<{ rules: string[]; files: Map<string, FileReport> }> {
  const args = [VALIDATE, '--json', ...(xrechnung ? ['--xrechnung'] : []), ...files];
  return new Promise((resolve, reject) => {
    execFile('node', args, { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      // Exit 1 is "some file has a fatal finding", which the tests read; 2 is "could not run".
      if (error && error.code !== 1)
        return reject(new Error(`validate could not run (exit ${String(error.code)}): ${stderr || error.message}`));
      try {
        const report = JSON.parse(stdout) as { rules: string[]; files: FileReport[] };
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

/**
 * Checks XML files against an XML schema with xmllint, all in one run: each file's errors
 * (empty when it validates).
 */
export function schemaErrors(schema: string, files: string[]): Map<string, string[]> {
  const run = spawnSync('xmllint', ['--noout', '--schema', schema, ...files], { maxBuffer: 64 * 1024 * 1024 });
  // 0: all valid; 3 or 4: some file is not; anything else: it could not run.
  if (run.status !== 0 && run.status !== 3 && run.status !== 4)
    throw new Error(`xmllint could not run: ${String(run.stderr ?? run.error)}`);
  const output = `${String(run.stdout)}${String(run.stderr)}`;
  const result = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const line of output.split('\n')) {
    const file = files.find((f) => line.startsWith(`${f}:`));
    if (file) result.get(file)!.push(line.slice(file.length + 1).trim());
  }
  for (const file of files)
    if (!output.includes(`${file} validates`) && result.get(file)!.length === 0) result.get(file)!.push('no verdict');
  return result;
}
