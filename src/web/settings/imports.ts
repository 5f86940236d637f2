import { confirmedButton } from '../kit/fields.js';
import { createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { FORMATS, type ImportOutcome, type ImportRequest, type ImportView } from '../../modules/imports/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { stripUnsafe } from '../../kernel/input.js';
import type { ImportJob, UploadSlot } from '../../threads/imports.js';
import { type Html, html } from '../kit/html.js';
import { field, wallClock } from '../kit/forms.js';
import { noticeFor, readerZone, redirect, send, sendTab, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { spoken, statusOf } from '../kit/refusal.js';
import { formats, type Key, t, translator, type Vars, words } from '../../i18n/index.js';
import { logDay } from './sentence.js';

type SignedIn = Signed & { session: SessionView; secret: string };

/** What the upload form asks, beside the file. */
interface UploadForm {
  timeZone: string;
  dateFormat: string;
  format: string;
  createMembers: boolean;
}

const BLANK: UploadForm = { timeZone: '', dateFormat: 'auto', format: 'auto', createMembers: false };
const mb = (bytes: number) => `${formats().number(Math.round(bytes / 1024 / 1024))} MB`;
/** A size as a person reads it: KB below a megabyte, MB with one place below ten. */
const sizeOf = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${formats().number(Math.max(1, Math.round(bytes / 1024)))} KB`
    : `${formats().decimal(bytes / 1024 / 1024, bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;

/** A number of things in the reader's words and digits: `1,234 rows`, `1.234 Zeilen`. */
const counted = (key: Key, n: number) => t(key, { count: n, n: formats().number(n) });
const rows = (n: number) => counted('integrations.imports.nRows', n);
const entries = (n: number) => counted('integrations.imports.nEntries', n);

/** What an import makes (or would), in the reader's words; empty when nothing (the command line says it as the service does). */
function createdWords(created: ImportOutcome['report']['created']): string {
  return [
    created.clients > 0 && counted('integrations.imports.made.clients', created.clients),
    created.projects > 0 && counted('integrations.imports.made.projects', created.projects),
    created.tasks > 0 && counted('integrations.imports.made.tasks', created.tasks),
    created.tags > 0 && counted('integrations.imports.made.tags', created.tags),
    created.users > 0 && counted('integrations.imports.made.members', created.users),
  ]
    .filter(Boolean)
    .join(', ');
}

/** What an import restores (or would) of a workspace's export (decisions 11a), in the reader's words; empty when nothing. */
function restoredWords(restored: ImportOutcome['report']['restored']): string {
  if (!restored) return '';
  return [
    (restored.workspace ?? 0) > 0 && t('integrations.imports.restore.workspace'),
    (restored.members ?? 0) > 0 && counted('integrations.imports.restore.members', restored.members ?? 0),
    restored.profile > 0 && t('integrations.imports.restore.profile'),
    restored.invoicing > 0 && t('integrations.imports.restore.invoicing'),
    restored.rates > 0 && counted('integrations.imports.restore.rates', restored.rates),
    restored.invoices > 0 && counted('integrations.imports.restore.invoices', restored.invoices),
  ]
    .filter(Boolean)
    .join(', ');
}

/** A refusal of this page: its words in the reader's language, its message (logs, the API's way) in English. */
const pageRefusal = (code: DomainError['code'], key: Key, vars?: Vars) =>
  new DomainError(code, translator('en')(key, vars), { words: words(key, vars) });

const STATES: Record<ImportView['state'], Key> = {
  running: 'integrations.imports.state.running',
  done: 'integrations.imports.state.done',
  failed: 'integrations.imports.state.failed',
  undone: 'integrations.imports.state.undone',
};
const PHASES: Record<'reading' | 'checking' | 'writing', Key> = {
  reading: 'integrations.imports.phase.reading',
  checking: 'integrations.imports.phase.checking',
  writing: 'integrations.imports.phase.writing',
};

function uploadForm(deps: WebDeps, session: SessionView, form: UploadForm): Html {
  const base = deps.paths.settings;
  const select = (name: string, value: string, options: Array<[string, string]>) =>
    options.map(([v, label]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${label}</option>`);
  return html`<form class="stack" method="post" action="${base}/import" enctype="multipart/form-data">
    ${csrfField(session.csrfToken)}
    <div>
      <label for="import-file"
        >${t('integrations.imports.file')}
        <span class="hint">${t('integrations.imports.fileHint', { size: mb(deps.config.importUploadMaxBytes) })}</span></label
      >
      <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
    </div>
    <div>
      <label for="import-zone">${t('integrations.imports.zone')} <span class="hint">${t('integrations.imports.zoneHint')}</span></label>
      <input id="import-zone" name="timeZone" type="text" maxlength="64" value="${form.timeZone}" data-browser-zone />
    </div>
    <div>
      <label for="import-dates">${t('integrations.imports.dates')} <span class="hint">${t('integrations.imports.datesHint')}</span></label>
      <select id="import-dates" name="dateFormat">
        ${select('dateFormat', form.dateFormat, [
          ['auto', t('integrations.imports.datesAuto')],
          ['DMY', t('integrations.imports.dayFirst')],
          ['MDY', t('integrations.imports.monthFirst')],
        ])}
      </select>
    </div>
    <div>
      <label for="import-format"
        >${t('integrations.imports.format')} <span class="hint">${t('integrations.imports.formatHint')}</span></label
      >
      <select id="import-format" name="format">
        ${select('format', form.format, [['auto', t('integrations.imports.formatAuto')], ...FORMATS.map((f): [string, string] => [f, f])])}
      </select>
    </div>
    ${
      session.isOwner
        ? html`<label class="check"
            ><input type="checkbox" name="createMembers" value="yes" ${form.createMembers ? html`checked` : ''} />
            <span
              >${t('integrations.imports.createMembers')} <span class="hint">${t('integrations.imports.createMembersHint')}</span></span
            ></label
          >`
        : html`<p class="hint">${t('integrations.imports.asYours', { name: session.name })}</p>`
    }
    <div><button type="submit">${t('integrations.imports.check')}</button></div>
  </form>`;
}

function importList(deps: WebDeps, session: SessionView, imports: ImportView[]): Html {
  if (imports.length === 0) return html`<p>${t('integrations.imports.noneYet', { workspace: session.workspaceName })}</p>`;
  return html`<ul class="cards" aria-label="${t('integrations.imports.list')}">
    ${imports.map(
      (i) =>
        html`<li>
          <div class="card-title">
            ${i.fileName}
            <span class="badge ${i.state === 'done' ? 'good' : i.state === 'failed' ? 'bad' : ''}">${t(STATES[i.state])}</span>
          </div>
          <dl class="facts">
            <dt>${t('integrations.imports.started')}</dt>
            <dd>${when(i.startedAt, readerZone(deps, session))}</dd>
            <dt>${t('integrations.imports.rows')}</dt>
            <dd>
              ${t('integrations.imports.rowsLine', {
                rows: rows(i.rows),
                entries: entries(i.imported),
                duplicates: counted('integrations.imports.nDuplicates', i.duplicates),
              })}${i.state === 'undone' ? t('integrations.imports.undoneSince') : ''}
            </dd>
            ${
              i.failure
                ? html`<dt>${t('integrations.imports.why')}</dt>
                    <dd>${i.failure}</dd>`
                : ''
            }
          </dl>
          ${i.state === 'done' ? undoForm(deps, session, i.id, i.fileName, i.imported) : ''}
        </li>`,
    )}
  </ul>`;
}

const undoForm = (deps: WebDeps, session: SessionView, id: string, fileName: string, imported: number) =>
  confirmedButton({
    action: `${deps.paths.settings}/import/${id}/undo`,
    confirm: t('integrations.imports.confirmUndo', { entries: entries(imported), file: fileName }),
    csrfToken: session.csrfToken,
    label: t('integrations.imports.undo', { file: fileName }),
  });

function progressBody(job: ImportJob): Html {
  const p = job.progress;
  const passes = { reading: 0, checking: 1, writing: 2 };
  const share = p && p.totalBytes > 0 ? (passes[p.phase] + Math.min(p.bytes / p.totalBytes, 1)) / (job.kind === 'preview' ? 2 : 3) : 0;
  if (job.kind === 'undo') return html`<p role="status">${t('integrations.imports.undoing', { file: job.fileName })}</p>`;
  const where = p
    ? t('integrations.imports.phaseRows', { phase: t(PHASES[p.phase]), rows: rows(p.rows) })
    : t('integrations.imports.starting');
  return html`<p role="status">
      ${t(job.kind === 'preview' ? 'integrations.imports.checking' : 'integrations.imports.importing', { file: job.fileName, where })}
    </p>
    <progress max="100" value="${String(Math.round(Math.min(share, 1) * 100))}">${formats().number(Math.round(share * 100))} %</progress>
    <p class="hint">${t('integrations.imports.follows')}</p>`;
}

function refusedList(outcome: ImportOutcome): Html {
  const { refused } = outcome.report;
  if (refused.length === 0) return html``;
  return html`<h2>${t('integrations.imports.refusedRows')}</h2>
    <ul class="refused" aria-label="${t('integrations.imports.refusedRows')}">
      ${refused.map(
        (r) =>
          html`<li>
            ${r.line > 0 ? html`<strong>${t('integrations.imports.line', { line: formats().number(r.line) })}</strong>: ` : ''}${r.words === undefined ? r.message : t(r.words.key, r.words.vars)}
          </li>`,
      )}
    </ul>`;
}

/** An instant as the file wrote it: in the import's zone (or UTC), to the minute. */
function localTime(iso: string, zone: string | undefined): string {
  const { date, time } = wallClock(zone ?? 'UTC')(Date.parse(iso));
  return `${logDay(date)} ${time.slice(0, 5)}`;
}

/** Where a row's rate comes from, in words: the file's amount wins over every rate (issue 45). */
function rateText(r: ImportOutcome['preview'][number]): string {
  if (r.rateFrom === 'none') return t('integrations.imports.rateNone');
  if (r.hourlyRate === null) return t('integrations.imports.rateInherited');
  const rate = formats().decimal(r.hourlyRate, 4);
  return r.rateFrom === 'amount' ? t('integrations.imports.rateFromAmount', { rate }) : rate;
}

function previewTable(outcome: ImportOutcome, zone: string | undefined): Html {
  if (outcome.preview.length === 0) return html``;
  const shown = zone ?? 'UTC';
  const columns = [
    t('integrations.imports.column.line'),
    t('integrations.imports.column.member'),
    t('integrations.imports.column.start'),
    t('integrations.imports.column.end'),
    t('integrations.imports.column.description'),
    t('integrations.imports.column.project'),
    t('integrations.imports.column.task'),
    t('integrations.imports.column.tags'),
    t('integrations.imports.column.billable'),
    t('integrations.imports.column.rate'),
  ];
  return html`<h2>${t('integrations.imports.firstRows')}</h2>
    <p class="hint">${t('integrations.imports.timesIn', { zone: shown })}</p>
    <div class="scroll">
      <table class="rows">
        <thead>
          <tr>
            ${columns.map((c) => html`<th scope="col">${c}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${outcome.preview.map((r) => {
            const cells = [
              formats().number(r.line),
              r.member,
              localTime(r.start, zone),
              localTime(r.end, zone),
              r.description || t('integrations.imports.noDescription'),
              `${r.client ? `${r.client} / ` : ''}${r.project}`,
              r.task,
              r.tags.join(', '),
              r.billable === null
                ? t('integrations.imports.projects')
                : r.billable
                  ? t('integrations.imports.yes')
                  : t('integrations.imports.no'),
              rateText(r),
            ];
            return html`<tr>
              ${cells.map((cell, i) => html`<td data-label="${columns[i] ?? ''}">${cell}</td>`)}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>`;
}

function summary(outcome: ImportOutcome, dry: boolean): Html {
  const { report } = outcome;
  const refusedRows = report.refused.filter((r) => r.line > 0).length;
  const made = createdWords(report.created);
  const restored = restoredWords(report.restored);
  return html`<dl class="facts">
    <dt>${t('integrations.imports.format')}</dt>
    <dd>${report.format}</dd>
    <dt>${t('integrations.imports.rows')}</dt>
    <dd>${rows(report.rows)}</dd>
    <dt>${dry ? t('integrations.imports.toImport') : t('integrations.imports.imported')}</dt>
    <dd>${entries(dry ? outcome.importable : report.imported)}${dry && refusedRows > 0 ? t('integrations.imports.refusedSkipped') : ''}</dd>
    <dt>${t('integrations.imports.duplicates')}</dt>
    <dd>${t('integrations.imports.duplicatesLine', { rows: rows(report.duplicates) })}</dd>
    <dt>${t('integrations.imports.refused')}</dt>
    <dd>${rows(refusedRows)}</dd>
    <dt>${dry ? t('integrations.imports.toCreate') : t('integrations.imports.created')}</dt>
    <dd>${made === '' ? t('integrations.imports.nothing') : made}</dd>
    ${
      restored === ''
        ? ''
        : html`<dt>${dry ? t('integrations.imports.toRestore') : t('integrations.imports.restored')}</dt>
            <dd>${restored}</dd>`
    }
    ${report.notices.map((notice, i) => {
      const said = report.noticeWords?.[i];
      return html`<dt>${t('integrations.imports.note')}</dt>
        <dd class="notice">${said === undefined ? notice : t(said.key, said.vars)}</dd>`;
    })}
    ${
      report.unmatchedUsers.length > 0
        ? html`<dt>${t('integrations.imports.unmatched')}</dt>
            <dd>
              ${report.unmatchedUsers.map((u) => html`${u.name || u.email}${u.email && u.name ? ` <${u.email}>` : ''} (${rows(u.rows)}); `)}
              ${t('integrations.imports.unmatchedAdvice')}
            </dd>`
        : ''
    }
  </dl>`;
}

/** What an import wrote, in words: its entries and what it restored (a file of a workspace's records only has no entry). */
function importedInWords(outcome: ImportOutcome): string {
  const restored = restoredWords(outcome.report.restored);
  if (restored === '') return entries(outcome.report.imported);
  return outcome.report.imported > 0 ? t('integrations.imports.both', { entries: entries(outcome.report.imported), restored }) : restored;
}

/** The page of one run: its progress, the preview with Import, or the result with Undo. */
function jobBody(deps: WebDeps, session: SessionView, job: ImportJob): { body: Html; notice: Notice | null; status: number } {
  const again = html`<p><a href="${deps.paths.settings}/import">${t('integrations.imports.another')}</a></p>`;
  if (job.state === 'running') return { body: progressBody(job), notice: null, status: 200 };
  if (job.kind === 'undo' && job.state === 'done') {
    return {
      notice: { kind: 'ok', body: t('integrations.imports.undone', { entries: entries(job.deleted ?? 0) }) },
      status: 200,
      body: html`<p><a href="${deps.paths.settings}/import">${t('integrations.imports.back')}</a></p>`,
    };
  }
  if (job.state !== 'done' || !job.outcome) {
    // A refusal answers with the API's status for it (400, 403 …), a failure 500.
    const status = job.code ? statusOf(new DomainError(job.code, '')) : 500;
    return { body: again, notice: { kind: 'error', body: job.message ?? t('integrations.imports.stopped') }, status };
  }
  const { outcome } = job;
  if (job.kind === 'import') {
    const id = outcome.report.importId as string;
    return {
      notice: {
        kind: 'ok',
        body: t('integrations.imports.importedFrom', { what: importedInWords(outcome), file: job.fileName }),
      },
      status: 200,
      body: html`${summary(outcome, false)} ${refusedList(outcome)} ${undoForm(deps, session, id, job.fileName, outcome.report.imported)}
      ${again}`,
    };
  }
  const refused = outcome.report.refused.filter((r) => r.line > 0).length;
  // What Import writes, in words: the entries, else (a file of a workspace's records only, issue 54 I3) what it restores and creates.
  const what =
    outcome.importable > 0
      ? entries(outcome.importable)
      : [restoredWords(outcome.report.restored), createdWords(outcome.report.created)].filter(Boolean).join(', ');
  const importForm = html`<form class="stack after" method="post" action="${deps.paths.settings}/import/runs/${job.id}/import">
    ${csrfField(session.csrfToken)} ${refused ? html`<input type="hidden" name="skipInvalid" value="yes" />` : ''}
    <div>
      <button type="submit">
        ${
          refused
            ? outcome.importable > 0
              ? t('integrations.imports.importOthers', { rows: rows(outcome.importable) })
              : t('integrations.imports.importRest', { what })
            : t('integrations.imports.importWhat', { what })
        }
      </button>
    </div>
  </form>`;
  return {
    notice: refused
      ? {
          kind: 'error',
          body: t(outcome.writes ? 'integrations.imports.cannotOrOthers' : 'integrations.imports.cannot', {
            count: refused,
            rows: rows(refused),
            file: job.fileName,
          }),
        }
      : { kind: 'ok', body: t('integrations.imports.ready', { file: job.fileName }) },
    status: 200,
    body: html`${summary(outcome, true)} ${refusedList(outcome)} ${previewTable(outcome, job.request.timeZone)}
      ${outcome.writes ? importForm : ''}
      <h2>${t('integrations.imports.checkAnother')}</h2>
      ${uploadForm(deps, session, { ...BLANK, timeZone: job.request.timeZone ?? '' })}`,
  };
}

/** An upload received: its place (its file), its size, its name and the form beside it. */
interface Upload {
  slot: UploadSlot;
  bytes: number;
  fileName: string;
  form: UploadForm;
}

/**
 * Reads the upload into the place the runner reserved before the body is read (a run free, the
 * member's and the server's shares of stored files not exhausted: else 429 and nothing is read
 * or written). The token first: a file is stored only for a form of this session. Every refusal
 * deletes what was written.
 */
async function receive(req: Request, deps: WebDeps, session: SessionView): Promise<Upload> {
  const slot = deps.imports.reserveUpload(session.actor);
  try {
    return await receiveInto(slot, req, session);
  } catch (error) {
    // Whatever went wrong (a form busboy cannot read throws at once), the place and the file go.
    slot.release();
    throw error;
  }
}

async function receiveInto(slot: UploadSlot, req: Request, session: SessionView): Promise<Upload> {
  const fields: Record<string, string> = {};
  let fileName = '';
  let tooLarge = false;
  let stored: Promise<void> | null = null as Promise<void> | null;
  const refuse = (code: DomainError['code'], key: Key, vars?: Vars) => {
    slot.release();
    return pageRefusal(code, key, vars);
  };
  const unreadable = () => refuse('invalid', 'integrations.imports.unreadable');
  let parser: ReturnType<typeof busboy>;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: 20, fieldSize: 1024, fileSize: slot.maxBytes },
      // Browsers send a file's name as UTF-8 (busboy reads latin1 unless told: "Müller.csv" became "MÃ¼ller.csv").
      defParamCharset: 'utf8',
    });
  } catch {
    // Not multipart, or no boundary: busboy throws before reading anything.
    throw unreadable();
  }
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (_name, file, info) => {
    if (fields._csrf !== session.csrfToken) {
      file.resume();
      return;
    }
    // No control or bidirectional characters (a name shown on pages and printed by the command line).
    fileName =
      stripUnsafe(info.filename ?? '')
        .replace(/[/\\]/g, '_')
        .slice(0, 200) || 'upload.csv';
    file.on('limit', () => {
      tooLarge = true;
    });
    stored = pipeline(file, createWriteStream(slot.path));
  });
  try {
    await pipeline(req, parser);
    await stored;
  } catch {
    throw unreadable();
  }
  if (fields._csrf !== session.csrfToken) {
    // As the router answers any other form whose token is wrong.
    throw refuse('forbidden', 'integrations.imports.outOfDate');
  }
  if (tooLarge) {
    const max = sizeOf(slot.maxBytes);
    throw refuse(
      'invalid',
      slot.limitedBy === 'file'
        ? 'integrations.imports.tooLargeFile'
        : slot.limitedBy === 'member'
          ? 'integrations.imports.tooLargeMember'
          : 'integrations.imports.tooLargeServer',
      { max },
    );
  }
  if (!stored) throw refuse('invalid', 'integrations.imports.chooseFile');
  return {
    slot,
    bytes: statSync(slot.path).size,
    fileName,
    form: {
      timeZone: (fields.timeZone ?? '').trim(),
      dateFormat: fields.dateFormat ?? 'auto',
      format: fields.format ?? 'auto',
      createMembers: fields.createMembers === 'yes',
    },
  };
}

function requestOf(session: SessionView, path: string, form: UploadForm): Omit<ImportRequest, 'progress'> {
  const format = (FORMATS as readonly string[]).includes(form.format) ? (form.format as ImportRequest['format']) : 'auto';
  return {
    workspaceId: session.workspaceId,
    path,
    format,
    ...(form.timeZone ? { timeZone: form.timeZone } : {}),
    ...(form.dateFormat === 'DMY' || form.dateFormat === 'MDY' ? { dateFormat: form.dateFormat } : {}),
    createMembers: form.createMembers,
    wording: 'page',
  };
}

/** The Import page (decisions §10): upload, the dry run's preview, Import, the result with Undo. */
export function importPages(router: Router, deps: WebDeps): void {
  const { services } = deps;
  const base = deps.paths.settings;

  const render = async (res: Response, signed: SignedIn, status: number, form: UploadForm, notice: Notice | null) => {
    const { session } = signed;
    const imports = await services.imports.list(session.actor, session.workspaceId);
    sendTab(deps, res, signed, status, {
      tab: 'import',
      notice,
      body: html`<p>${t('integrations.imports.intro')}</p>
        ${uploadForm(deps, session, form)}
        <h2>${t('integrations.imports.heading', { workspace: session.workspaceName })}</h2>
        ${importList(deps, session, imports)}`,
    });
  };

  router.get(
    '/import',
    signedIn(deps, (_req, res, signed) => render(res, signed, 200, BLANK, noticeFor(deps, signed))),
  );

  router.post(
    '/import',
    signedIn(deps, async (req, res, signed) => {
      const { session } = signed;
      let upload: Upload;
      try {
        upload = await receive(req, deps, session);
      } catch (error) {
        // Refused before its body was read (no run free, no room): the body is read and dropped, never stored.
        if (!req.complete) req.resume();
        if (error instanceof DomainError) {
          return render(res, signed, statusOf(error), BLANK, { kind: 'error', body: spoken(error) });
        }
        throw error;
      }
      let job: ImportJob;
      try {
        job = deps.imports.start(
          session.actor,
          'preview',
          requestOf(session, upload.slot.path, upload.form),
          upload.fileName,
          null,
          upload,
        );
      } catch (error) {
        upload.slot.release();
        throw error;
      }
      redirect(res, `${base}/import/runs/${job.id}`);
    }),
  );

  router.get(
    '/import/runs/:id',
    signedIn(deps, (req, res, signed) => {
      const job = deps.imports.job(signed.session.actor, String(req.params.id));
      const { body, notice, status } = jobBody(deps, signed.session, job);
      send(deps, res, status, {
        ...shell(deps, signed),
        title: t(
          { preview: 'integrations.imports.titleCheck', import: 'integrations.imports.titleImport', undo: 'integrations.imports.undo' }[
            job.kind
          ] as Key,
          { file: job.fileName },
        ),
        current: 'import',
        notice,
        body,
        ...(job.state === 'running' ? { refreshSeconds: 1 } : {}),
      });
    }),
  );

  router.post(
    '/import/runs/:id/import',
    signedIn(deps, (req, res, signed) => {
      const preview = deps.imports.job(signed.session.actor, String(req.params.id));
      if (preview.kind !== 'preview' || preview.state !== 'done') throw pageRefusal('conflict', 'integrations.imports.checkFirst');
      if (preview.fileGone) throw pageRefusal('conflict', 'integrations.imports.fileGone');
      const job = deps.imports.start(
        signed.session.actor,
        'import',
        { ...preview.request, dryRun: false, skipInvalid: field(req, 'skipInvalid') === 'yes' },
        preview.fileName,
      );
      redirect(res, `${base}/import/runs/${job.id}`);
    }),
  );

  router.post(
    '/import/:id/undo',
    signedIn(deps, async (req, res, signed) => {
      // On a thread of its own, as the import was: a million entries take a while to delete.
      const record = await services.imports.show(signed.session.actor, String(req.params.id));
      const job = deps.imports.start(
        signed.session.actor,
        'undo',
        { workspaceId: record.workspaceId, path: '' },
        record.fileName,
        record.id,
      );
      redirect(res, `${base}/import/runs/${job.id}`);
    }),
  );
}
