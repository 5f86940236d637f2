import type { Router } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { DocumentPool } from '../threads/documents/pool.js';
import type { ReaderPool } from '../threads/readers/pool.js';
import type { Services } from '../services.js';
import type { ImportRunner } from '../threads/imports.js';
import type { BodyCheck } from './kit/forms.js';
import type { LiveFeed } from './live.js';
import type { WebPaths } from './paths.js';
import type { Flashes } from './kit/flashes.js';

/** What every area of the pages is given (src/server.ts makes it). */
export interface WebDeps {
  config: Config;
  logger: Logger;
  services: Services;
  clock: Clock;
  paths: WebPaths;
  /** Notices carried over the redirect after a form (a secret shown once). */
  flashes: Flashes;
  /** The Import page's runs, on worker threads. */
  imports: ImportRunner;
  /** The address the server recorded when it started listening (null before that). */
  serverAddress: () => string | null;
  /** The app's live stream. */
  live: LiveFeed;
  /** Form bodies checked against the contract's own schemas. */
  check: BodyCheck;
  /** The API's reader threads: the Reports page's reads run there, as the report routes' do. */
  readers: ReaderPool;
  /** The document threads: the invoice pages' PDFs and XML are made there. */
  documents: DocumentPool;
}

/** An area of the pages: where it lives and its routes. Areas never import one another; they share the kit and the session. */
export interface WebArea {
  /** Its base path (mounted there). */
  base: (deps: WebDeps) => string;
  routes: (router: Router, deps: WebDeps) => void;
}
