import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import { type ProblemSlug, problemTypes } from '../../generated/problems.js';
import { inlineStyleCsp } from './kept-page.js';

/**
 * Human-readable pages for every problem `type` URI, served when PROBLEMS_BASE is the default
 * (`{BASE_URL}/problems`), so that each `type` a client receives resolves. The text comes from
 * the contract's ProblemSlug descriptions.
 */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}';

/**
 * The pages load nothing, run no script and may not be framed: the policy allows only their one
 * inline style, by its hash.
 */
export const PROBLEM_PAGE_CSP = inlineStyleCsp(STYLE);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  `<meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<style>${STYLE}</style>` +
  `</head><body>${body}</body></html>`;

export function problemPage(problemsBase: string) {
  return (req: Request, res: Response): void => {
    const slug = req.params.slug as string | undefined;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', PROBLEM_PAGE_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (slug === undefined) {
      const items = Object.entries(problemTypes)
        .map(([name, { status }]) => `<li><a href="${escapeHtml(problemsBase)}/${name}"><code>${name}</code></a> (${status})</li>`)
        .join('');
      res.status(200).end(page('timetrack problem types', `<h1>Problem types</h1><ul>${items}</ul>`));
      return;
    }
    const problem = Object.hasOwn(problemTypes, slug) ? problemTypes[slug as ProblemSlug] : undefined;
    if (!problem) {
      res
        .status(404)
        .end(
          page('Unknown problem type', `<h1>Unknown problem type</h1><p><a href="${escapeHtml(problemsBase)}">All problem types</a></p>`),
        );
      return;
    }
    res
      .status(200)
      .end(
        page(
          slug,
          `<h1><code>${escapeHtml(slug)}</code></h1>` +
            `<p>HTTP status <strong>${problem.status} ${escapeHtml(STATUS_CODES[problem.status] ?? '')}</strong></p>` +
            `<p>${escapeHtml(problem.description)}</p>` +
            `<p>Problem documents of this type carry <code>type: ${escapeHtml(problemsBase)}/${escapeHtml(slug)}</code>. ` +
            `Branch on <code>type</code>; the <code>detail</code> wording may change. <a href="${escapeHtml(problemsBase)}">All problem types</a></p>`,
        ),
      );
  };
}
