import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import { Marked, type Tokens } from 'marked';
import { escapeHtml } from '../kernel/escape.js';
import { inlineStyleCsp, type KeptPage, keptPage, sendKept } from './kept-page.js';
import { errorFields, type Logger } from '../logger.js';
import { PACKAGE_ROOT } from '../paths.js';

/**
 * Where the changelog is served: beside the API reference (which links it), outside `/api/v1`
 * and its token. The `Link: rel="deprecation"` of a deprecated operation points into it.
 */
export const CHANGELOG_PATH = '/api/changelog';

/** CHANGELOG.md of the running version (its sections are generated: `contract:diff --format changelog`). */
export const CHANGELOG_FILE = join(PACKAGE_ROOT, 'CHANGELOG.md');

/**
 * The anchor of a deprecation's entry: `GET /api/v1/entries query.search` ->
 * `deprecated-get-api-v1-entries-query-search`. The page gives it to the list item that starts
 * with that location in code followed by "deprecated" (the generated changelog's form).
 */
export const deprecationAnchor = (location: string): string =>
  `deprecated-${location
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const headingSlug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:3rem auto;padding:0 1rem}' +
  'code{background:#f3f3f3;padding:0 .2em}li:target{background:#fff3c4}h2{border-bottom:1px solid #ddd;margin-top:2.5rem}';

/** The page loads nothing and runs no script: its one inline style, by its hash. */
export const CHANGELOG_CSP = inlineStyleCsp(STYLE);

/**
 * CHANGELOG.md as HTML: headings carry GitHub's anchors (`#100-unreleased-…`, repeated ones
 * numbered), each deprecation its own (deprecationAnchor). Raw HTML in the file is shown as text;
 * a link to a file of the repository, which the server does not serve, as its text.
 */
export function renderChangelog(markdown: string): string {
  const seen = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    async: false,
    renderer: {
      heading({ tokens, depth, text }: Tokens.Heading) {
        const base = headingSlug(text);
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        const id = count === 0 ? base : `${base}-${count}`;
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      listitem(item: Tokens.ListItem) {
        const deprecated = /^`([^`]+)` deprecated\b/.exec(item.text);
        const id = deprecated ? ` id="${escapeHtml(deprecationAnchor(deprecated[1] as string))}"` : '';
        return `<li${id}>${this.parser.parse(item.tokens)}</li>\n`;
      },
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
      // A link to a file of the repository (`docs/contributing.md`) names nothing on the server: its text only.
      link({ href, tokens }: Tokens.Link) {
        const text = this.parser.parseInline(tokens);
        return /^(?:[a-z][a-z0-9+.-]*:|#)/i.test(href) ? `<a href="${escapeHtml(href)}">${text}</a>` : text;
      },
    },
  });
  const body = marked.parse(markdown) as string;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>timetrack API changelog</title>' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<style>${STYLE}</style></head><body>${body}</body></html>`
  );
}

interface Loaded {
  /** Per media type: the bytes, the ETag's tag and their compressed forms. */
  forms: Record<'html' | 'markdown', KeptPage>;
}

/** `Accept` names `text/markdown` and not `text/html` (a browser names HTML: it gets the page). */
const wantsMarkdown = (accept: string | undefined) =>
  accept !== undefined && /\btext\/markdown\b/i.test(accept) && !/\btext\/html\b/i.test(accept);

/**
 * GET (and HEAD) `/api/changelog`: CHANGELOG.md as a page (or as Markdown, for `Accept:
 * text/markdown`), read and rendered on its first request and kept; `no-cache` with a strong
 * ETag. It is the changelog of the running version, so a deprecation's link always finds the
 * entry the server itself knows.
 */
export function changelogPage(options: { file?: string; compressionMinBytes: number | null; logger: Logger }): RequestHandler {
  const file = options.file ?? CHANGELOG_FILE;
  let loading: Promise<Loaded> | null = null;
  const form = (bytes: Buffer) => keptPage('changelog', bytes);
  const load = () => {
    if (loading === null) {
      loading = readFile(file).then((markdown) => ({
        forms: { markdown: form(markdown), html: form(Buffer.from(renderChangelog(markdown.toString('utf8')))) },
      }));
      loading.catch(() => (loading = null));
    }
    return loading;
  };
  return async (req: Request, res: Response) => {
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Vary', options.compressionMinBytes === null ? 'Accept' : 'Accept, Accept-Encoding');
    let loaded: Loaded;
    try {
      loaded = await load();
    } catch (error) {
      options.logger.error('the changelog cannot be read', { file, ...errorFields(error) });
      res.status(503).setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.end(`The changelog (${file}) cannot be read.\n`);
      return;
    }
    const markdown = wantsMarkdown(req.headers.accept);
    const page = markdown ? loaded.forms.markdown : loaded.forms.html;
    res.setHeader('Content-Type', markdown ? 'text/markdown; charset=utf-8' : 'text/html; charset=utf-8');
    if (!markdown) res.setHeader('Content-Security-Policy', CHANGELOG_CSP);
    await sendKept(req, res, page, options.compressionMinBytes);
  };
}
