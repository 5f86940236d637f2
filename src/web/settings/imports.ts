import { createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import {
  createdInWords,
  FORMATS,
  restoredInWords,
  type ImportOutcome,
  type ImportRequest,
  type ImportView,
} from '../../modules/imports/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { stripUnsafe } from '../../kernel/input.js';
import type { ImportJob, UploadSlot } from '../../threads/imports.js';
import { type Html, html } from '../kit/html.js';
import { field, wallClock } from '../kit/forms.js';
import { noticeFor, readerZone, redirect, send, shell } from '../kit/respond.js';
import { type WebDeps } from '../deps.js';
import { type Signed } from '../session/guard.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { signedIn } from '../session/guard.js';
import { spoken, statusOf } from '../kit/refusal.js';

type SignedIn = Signed & { session: SessionView; secret: string };

/** What the upload form asks, beside the file. */
interface UploadForm {
  timeZone: string;
  dateFormat: string;
  format: string;
  createMembers: boolean;
}

const BLANK: UploadForm = { timeZone: '', dateFormat: 'auto', format: 'auto', createMembers: false };
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
/** A size as a person reads it: KB below a megabyte, MB with one place below ten. */
const sizeOf = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0).replace(/\.0$/, '')} MB`;
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

function uploadForm(deps: WebDeps, session: SessionView, form: UploadForm): Html {
  const base = deps.paths.settings;
  const select = (name: string, value: string, options: Array<[string, string]>) =>
    options.map(([v, label]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${label}</option>`);
  return html`<form class="stack" method="post" action="${base}/import" enctype="multipart/form-data">
    ${csrfField(session.csrfToken)}
    <div>
      <label for="import-file"
        >CSV export
        <span class="hint"
          >Toggl, Clockify, Harvest or Kimai detailed report, or a timetrack file; at most ${mb(deps.config.importUploadMaxBytes)}.</span
        ></label
      >
      <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
    </div>
    <div>
      <label for="import-zone"
        >Time zone of the file
        <span class="hint">The zone its local times are in (an IANA name such as Europe/Berlin); your browser's is filled in.</span></label
      >
      <input id="import-zone" name="timeZone" type="text" maxlength="64" value="${form.timeZone}" data-browser-zone />
    </div>
    <div>
      <label for="import-dates">Dates <span class="hint">Found from the file when a day above 12 settles it.</span></label>
      <select id="import-dates" name="dateFormat">
        ${select('dateFormat', form.dateFormat, [
          ['auto', 'Find out from the file'],
          ['DMY', 'Day first (31/12/2026)'],
          ['MDY', 'Month first (12/31/2026)'],
        ])}
      </select>
    </div>
    <div>
      <label for="import-format">Format <span class="hint">Recognised by the file's columns.</span></label>
      <select id="import-format" name="format">
        ${select('format', form.format, [['auto', 'Recognise it'], ...FORMATS.map((f): [string, string] => [f, f])])}
      </select>
    </div>
    ${
      session.isOwner
        ? html`<label class="check"
            ><input type="checkbox" name="createMembers" value="yes" ${form.createMembers ? html`checked` : ''} />
            <span
              >Add users of the file who match no member as members
              <span class="hint">Without flags or a password; they get a setup link from the Members page later.</span></span
            ></label
          >`
        : html`<p class="hint">Every row is imported as yours (${session.name}): an owner imports the whole team's history.</p>`
    }
    <div><button type="submit">Check the file</button></div>
  </form>`;
}

function importList(deps: WebDeps, session: SessionView, imports: ImportView[]): Html {
  if (imports.length === 0) return html`<p>No imports into ${session.workspaceName} yet.</p>`;
  return html`<ul class="cards" aria-label="Imports">
    ${imports.map(
      (i) =>
        html`<li>
          <div class="card-title">
            ${i.fileName} <span class="badge ${i.state === 'done' ? 'good' : i.state === 'failed' ? 'bad' : ''}">${i.state}</span>
          </div>
          <dl class="facts">
            <dt>Started</dt>
            <dd>${when(i.startedAt, readerZone(deps, session))}</dd>
            <dt>Rows</dt>
            <dd>
              ${count(i.rows, 'row')}: ${count(i.imported, 'entry', 'entries')} imported, ${count(i.duplicates, 'duplicate')}
              skipped${i.state === 'undone' ? '; undone since (its entries deleted)' : ''}
            </dd>
            ${
              i.failure
                ? html`<dt>Why</dt>
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
  html`<form
    method="post"
    action="${deps.paths.settings}/import/${id}/undo"
    data-confirm="Delete the ${count(imported, 'entry', 'entries')} imported from ${fileName}?"
  >
    ${csrfField(session.csrfToken)}<button class="danger" type="submit">Undo the import of ${fileName}</button>
  </form>`;

function progressBody(job: ImportJob): Html {
  const p = job.progress;
  const passes = { reading: 0, checking: 1, writing: 2 };
  const share = p && p.totalBytes > 0 ? (passes[p.phase] + Math.min(p.bytes / p.totalBytes, 1)) / (job.kind === 'preview' ? 2 : 3) : 0;
  if (job.kind === 'undo') return html`<p role="status">Undoing the import of ${job.fileName}…</p>`;
  return html`<p role="status">
      ${job.kind === 'preview' ? 'Checking' : 'Importing'} ${job.fileName}: ${p ? `${p.phase}, ${count(p.rows, 'row')}` : 'starting'}…
    </p>
    <progress max="100" value="${String(Math.round(Math.min(share, 1) * 100))}">${String(Math.round(share * 100))} %</progress>
    <p class="hint">This page follows the run by itself; other pages and the API stay available meanwhile.</p>`;
}

function refusedList(outcome: ImportOutcome): Html {
  const { refused } = outcome.report;
  if (refused.length === 0) return html``;
  return html`<h2>Refused rows</h2>
    <ul class="refused" aria-label="Refused rows">
      ${refused.map((r) => html`<li>${r.line > 0 ? html`<strong>Line ${String(r.line)}</strong>: ` : ''}${r.message}</li>`)}
    </ul>`;
}

/** An instant as the file wrote it: in the import's zone (or UTC), to the minute. */
function localTime(iso: string, zone: string | undefined): string {
  const { date, time } = wallClock(zone ?? 'UTC')(Date.parse(iso));
  return `${date} ${time.slice(0, 5)}`;
}

/** Where a row's rate comes from, in words: the file's amount wins over every rate (issue 45). */
function rateText(r: ImportOutcome['preview'][number]): string {
  if (r.rateFrom === 'none') return 'none (the file says so)';
  if (r.hourlyRate === null) return 'from its task, project, member or workspace';
  return r.rateFrom === 'amount' ? `${r.hourlyRate} (from the file's amount)` : String(r.hourlyRate);
}

function previewTable(outcome: ImportOutcome, zone: string | undefined): Html {
  if (outcome.preview.length === 0) return html``;
  const shown = zone ?? 'UTC';
  const columns = ['Line', 'Member', 'Start', 'End', 'Description', 'Project', 'Task', 'Tags', 'Billable', 'Rate'];
  return html`<h2>The first rows, as they will be stored</h2>
    <p class="hint">Times in ${shown}, as the file writes them.</p>
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
              String(r.line),
              r.member,
              localTime(r.start, zone),
              localTime(r.end, zone),
              r.description || '(none)',
              `${r.client ? `${r.client} / ` : ''}${r.project}`,
              r.task,
              r.tags.join(', '),
              r.billable === null ? "the project's" : r.billable ? 'yes' : 'no',
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
  const made = createdInWords(report.created);
  const restored = restoredInWords(report.restored);
  return html`<dl class="facts">
    <dt>Format</dt>
    <dd>${report.format}</dd>
    <dt>Rows</dt>
    <dd>${count(report.rows, 'row')}</dd>
    <dt>${dry ? 'To import' : 'Imported'}</dt>
    <dd>
      ${count(dry ? outcome.importable : report.imported, 'entry', 'entries')}${dry && refusedRows > 0 ? ' (the refused rows skipped)' : ''}
    </dd>
    <dt>Duplicates</dt>
    <dd>${count(report.duplicates, 'row')} imported before, skipped</dd>
    <dt>Refused</dt>
    <dd>${count(refusedRows, 'row')}</dd>
    <dt>${dry ? 'To create' : 'Created'}</dt>
    <dd>${made === '' ? 'nothing' : made}</dd>
    ${
      restored === ''
        ? ''
        : html`<dt>${dry ? 'To restore' : 'Restored'}</dt>
            <dd>${restored}</dd>`
    }
    ${report.notices.map(
      (notice) =>
        html`<dt>Note</dt>
          <dd class="notice">${notice}</dd>`,
    )}
    ${
      report.unmatchedUsers.length > 0
        ? html`<dt>Unmatched users</dt>
            <dd>
              ${report.unmatchedUsers.map((u) => html`${u.name || u.email}${u.email && u.name ? ` <${u.email}>` : ''} (${count(u.rows, 'row')}); `)}
              add them on the Members page first, or check "Add users of the file … as members".
            </dd>`
        : ''
    }
  </dl>`;
}

/** What an import wrote, in words: its entries and what it restored (a file of a workspace's records only has no entry). */
function importedInWords(outcome: ImportOutcome): string {
  const restored = restoredInWords(outcome.report.restored);
  const entries = outcome.report.imported > 0 || restored === '' ? count(outcome.report.imported, 'entry', 'entries') : '';
  return [entries, restored].filter(Boolean).join(' and ');
}

/** The page of one run: its progress, the preview with Import, or the result with Undo. */
function jobBody(deps: WebDeps, session: SessionView, job: ImportJob): { body: Html; notice: Notice | null; status: number } {
  const again = html`<p><a href="${deps.paths.settings}/import">Import another file</a></p>`;
  if (job.state === 'running') return { body: progressBody(job), notice: null, status: 200 };
  if (job.kind === 'undo' && job.state === 'done') {
    return {
      notice: { kind: 'ok', body: `The import was undone: ${count(job.deleted ?? 0, 'entry', 'entries')} deleted.` },
      status: 200,
      body: html`<p><a href="${deps.paths.settings}/import">Back to the imports</a></p>`,
    };
  }
  if (job.state !== 'done' || !job.outcome) {
    // A refusal answers with the API's status for it (400, 403 …), a failure 500.
    const status = job.code ? statusOf(new DomainError(job.code, '')) : 500;
    return { body: again, notice: { kind: 'error', body: job.message ?? 'The run stopped.' }, status };
  }
  const { outcome } = job;
  if (job.kind === 'import') {
    const id = outcome.report.importId as string;
    return {
      notice: {
        kind: 'ok',
        body: `Imported ${importedInWords(outcome)} from ${job.fileName}.`,
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
      ? count(outcome.importable, 'entry', 'entries')
      : [restoredInWords(outcome.report.restored), createdInWords(outcome.report.created)].filter(Boolean).join(', ');
  const importForm = html`<form class="stack after" method="post" action="${deps.paths.settings}/import/runs/${job.id}/import">
    ${csrfField(session.csrfToken)} ${refused ? html`<input type="hidden" name="skipInvalid" value="yes" />` : ''}
    <div>
      <button type="submit">
        ${
          refused
            ? outcome.importable > 0
              ? `Import the other ${count(outcome.importable, 'row')}, skip the refused`
              : `Import the rest (${what}), skip the refused`
            : `Import ${what}`
        }
      </button>
    </div>
  </form>`;
  return {
    notice: refused
      ? {
          kind: 'error',
          body: `${count(refused, 'row')} of ${job.fileName} cannot be imported as ${refused === 1 ? 'it is: fix it' : 'they are: fix them'} in the file and check it again${outcome.writes ? ', or import the others' : ''}.`,
        }
      : { kind: 'ok', body: `${job.fileName} is ready to import: nothing has been written yet.` },
    status: 200,
    body: html`${summary(outcome, true)} ${refusedList(outcome)} ${previewTable(outcome, job.request.timeZone)}
      ${outcome.writes ? importForm : ''}
      <h2>Check another file</h2>
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
  const refuse = (code: DomainError['code'], message: string) => {
    slot.release();
    return new DomainError(code, message);
  };
  const unreadable = () =>
    refuse('invalid', 'The upload could not be read (it was cut off, or is not a form with a file). Choose the file and try again.');
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
    throw refuse('forbidden', 'The form was out of date or came from another site. Reload the page and choose the file again.');
  }
  if (tooLarge) {
    const max = sizeOf(slot.maxBytes);
    throw refuse(
      'invalid',
      slot.limitedBy === 'file'
        ? `The file is larger than the ${max} this page takes: export a shorter range, or ask the person who runs timetrack to import it on the server, where there is no limit.`
        : slot.limitedBy === 'member'
          ? `The file is larger than the ${max} your files on the server may still take: wait for your imports to finish, or ask the person who runs timetrack to import it on the server.`
          : `The file is larger than the ${max} the server's uploads may still take: try again later, or ask the person who runs timetrack to import it on the server.`,
    );
  }
  if (!stored) throw refuse('invalid', 'Choose a CSV file to import.');
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
    send(deps, res, status, {
      ...shell(deps, signed),
      title: 'Import',
      current: 'import',
      notice,
      body: html`<p>
          Bring your history from Toggl, Clockify, Harvest or Kimai: choose the export, check what would be imported (nothing is written
          yet), then import. Rows imported before are skipped, so an overlapping export adds only what is new.
        </p>
        ${uploadForm(deps, session, form)}
        <h2>Imports into ${session.workspaceName}</h2>
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
        title: { preview: `Check ${job.fileName}`, import: `Import ${job.fileName}`, undo: `Undo the import of ${job.fileName}` }[job.kind],
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
      if (preview.kind !== 'preview' || preview.state !== 'done')
        throw new DomainError('conflict', 'Check the file first: this run is not a finished check.');
      if (preview.fileGone) {
        throw new DomainError(
          'conflict',
          'This check’s file is no longer kept (it was imported already, or your newer upload replaced it): check the file again.',
        );
      }
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
