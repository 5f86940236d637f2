import { type Html, html } from './html.js';

/** What stands for no project (or a project without a valid colour): a neutral grey, unlike any project's. */
const DEFAULT_COLOUR = '#8c959f';

/**
 * A project's colour as a small mark: the fill attribute of an inline SVG, because the pages'
 * Content-Security-Policy forbids style attributes (an SVG presentation attribute is not one).
 * Decorative: the project's name beside it says the same.
 */
export function colourMark(color: string | null | undefined, kind: 'dot' | 'swatch'): Html {
  const fill = color && /^#[0-9a-f]{6}$/i.test(color) ? color : DEFAULT_COLOUR;
  return kind === 'dot'
    ? html`<svg class="dot" viewBox="0 0 10 10" aria-hidden="true" focusable="false"><circle cx="5" cy="5" r="5" fill="${fill}" /></svg>`
    : html`<svg class="swatch" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
        <rect width="10" height="10" rx="2" fill="${fill}" />
      </svg>`;
}
