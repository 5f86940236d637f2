// Types of checks.mjs (plain JavaScript, so that `validate` runs without a build).
import type { FileReport } from './tools.js';

export interface Prepared {
  results: Map<string, FileReport>;
  jobs: { id: string; file: string; set: string }[];
  manifest: string;
  done(): void;
}
export function missingTools(): string | null;
export function javaArgs(serve: boolean): string[];
export function prepare(files: string[]): Prepared;
export function absorb(prepared: Prepared, lines: string[]): void;
export function isFatal(finding: { flag: string }): boolean;
