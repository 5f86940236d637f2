import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { absorb, javaArgs, missingTools, prepare } from './checks.mjs';

/**
 * The programs the e-invoice tests run: the official rules and schemas through `validate` (its
 * checker Validate.java on a JDK, with Saxon-HE) and poppler-utils. `npm test`
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

let toolsChecked = false;
/** Throws, naming what to install, unless a JDK, Saxon-HE and poppler-utils are all there (asked once a run). */
export function requireTools(): void {
  if (toolsChecked) return;
  const missing: string[] = [];
  if (!hasJdk()) missing.push('a JDK (default-jdk-headless)');
  const saxon = process.env.SAXON_JAR ?? ['/usr/share/java/Saxon-HE.jar', '/usr/share/java/saxon9he.jar'].find((p) => existsSync(p));
  if (!saxon) missing.push('Saxon-HE (libsaxonhe-java)');
  for (const tool of ['pdftotext', 'pdffonts', 'pdfdetach', 'pdfinfo', 'pdftoppm'])
    if (!onPath(tool)) missing.push(`${tool} (poppler-utils)`);
  if (missing.length > 0)
    throw new Error(`The e-invoice tests cannot validate: ${missing.join(', ')} missing. Install them as root: ${INSTALL}`);
  toolsChecked = true;
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
  | 'ubl-2.1-schema'
  | 'cii-d16b-schema'
  | 'facturx-en16931-schema'
  | 'en16931'
  | 'xrechnung'
  | 'peppol'
  | 'facturx-en16931';

export interface FileReport {
  file: string;
  syntax: 'UBL' | 'CII' | null;
  /** The rule sets this file was checked against (what it claims). */
  rules: RuleSet[];
  findings: Finding[];
  pdf: {
    attachments: string[];
    /** The PDF/A part and conformance its XMP declares (pdfaid), or null. */
    part: number | null;
    conformance: string | null;
    partThree: boolean;
    facturXSchema: boolean;
    conformanceLevel: string | null;
    fontsNotEmbedded: string[];
    /** A plain PDF/A: it claims no Factur-X (no extension schema, nothing attached), so no XML rule set. */
    plain: boolean;
  } | null;
}

/**
 * Checks many files against every rule set each claims, in the run's ONE Java process:
 * Validate.java `--serve`, started on first use and kept for the whole test run (each stylesheet
 * and schema is compiled once per run, not once per call), fed one batch at a time. The same
 * checks as `validate --json` (both use checks.mjs). The second argument is kept for old callers
 * and ignored: the rule sets follow from each document.
 */
export async function validate(files: string[], _xrechnung?: boolean): Promise<{ rules: RuleSet[]; files: Map<string, FileReport> }> {
  const prepared = prepare(files.map((f) => resolve(f)));
  try {
    if (prepared.jobs.length > 0) absorb(prepared, await checker().check(prepared.manifest));
  } finally {
    prepared.done();
  }
  const reports = [...prepared.results.values()];
  const byName = new Map(files.map((f) => [f, prepared.results.get(resolve(f)) as FileReport]));
  for (const r of reports) r.file = files.find((f) => resolve(f) === r.file) ?? r.file;
  return { rules: [...new Set(reports.flatMap((r) => r.rules))], files: byName };
}

interface Checker {
  check(manifest: string): Promise<string[]>;
}
let kept: Checker | undefined;

/** The kept Java checker; batches wait their turn. It does not hold the test run open. */
function checker(): Checker {
  if (kept) return kept;
  const missing = missingTools();
  if (missing) throw new Error(`validate could not run: ${missing}`);
  const child = spawn('java', javaArgs(true), { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  let buffer = '';
  let waiting: { lines: string[]; resolve: (lines: string[]) => void; reject: (e: Error) => void } | undefined;
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!waiting) continue;
      if (line === 'done') {
        const done = waiting;
        waiting = undefined;
        hold(false);
        done.resolve(done.lines);
      } else waiting.lines.push(line);
    }
  });
  const hold = (on: boolean) => {
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as { ref?(): void; unref?(): void }[])
      if (on) handle.ref?.();
      else handle.unref?.();
  };
  child.on('exit', (code) => {
    kept = undefined;
    waiting?.reject(new Error(`validate could not run: the Java checker ended (exit ${String(code)}): ${stderr.join('').slice(0, 4000)}`));
    waiting = undefined;
  });
  hold(false);
  let turn: Promise<unknown> = Promise.resolve();
  const created: Checker = {
    check(manifest) {
      const mine = turn.then(
        () =>
          new Promise<string[]>((resolve, reject) => {
            waiting = { lines: [], resolve, reject };
            hold(true);
            child.stdin.write(`${manifest}\n\n`);
          }),
      );
      turn = mine.catch(() => undefined);
      return mine;
    },
  };
  kept = created;
  return created;
}

/** Findings that fail a document (as validate counts them: not warnings or information). */
export const fatal = (report: FileReport | undefined): string[] =>
  (report?.findings ?? []).filter((f) => f.flag !== 'warning' && f.flag !== 'information').map((f) => `${f.id}: ${f.text}`);

/** A poppler tool's output as text. */
export const poppler = (tool: string, ...args: string[]): string =>
  execFileSync(tool, args, { stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 }).toString();
