import type { DomainError } from '../errors.js';
import type { ImportOutcome, ImportProgress, ImportRequest } from '../modules/imports/service.js';

/** One run of the Import page: a dry run (the preview) or the import, on an uploaded file. */
export interface ImportJob {
  id: string;
  kind: 'preview' | 'import' | 'undo';
  /** The import an undo run takes back. */
  importId: string | null;
  /** What an undo run deleted. */
  deleted: number | null;
  userId: string;
  workspaceId: string;
  fileName: string;
  /** The uploaded file and the options it runs with (the import after a preview reuses them). */
  request: Omit<ImportRequest, 'progress'>;
  state: 'running' | 'done' | 'refused' | 'failed';
  progress: ImportProgress | null;
  outcome: ImportOutcome | null;
  /** Why it was refused (a whole-file refusal) or failed. */
  message: string | null;
  /** The refusal's domain code (the page answers with the API's status for it). */
  code: DomainError['code'] | null;
  startedAt: number;
  /** A finished check whose file was removed (imported, or dropped for the member's newer upload): Import needs a new check. */
  fileGone: boolean;
}
