import { escapeHtml } from '../../kernel/escape.js';
/**
 * HTML by tagged template: every interpolated value is escaped unless it is already `Html`
 * (made by this template or `raw`), so a name, a URL or an error message can never inject markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

export { escapeHtml };

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += render(values[i] as Value) + (strings[i + 1] as string);
  return new Html(out);
}

/** Markup written by us (never user input). */
export const raw = (text: string): Html => new Html(text);
