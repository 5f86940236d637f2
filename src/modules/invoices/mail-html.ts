import { escapeHtml } from '../../kernel/escape.js';

/**
 * The HTML part of a mail about an invoice (the invoice's own mail, a payment reminder): its
 * paragraphs, a table of its facts and its closing, in plain inline styles that mail programs
 * keep. Every value is escaped here; a title, when given, heads the body.
 */
export function invoiceMailHtml(mail: {
  language: string;
  subject: string;
  title?: string;
  paragraphs: readonly string[];
  facts: ReadonlyArray<readonly [string, string]>;
  closing: string;
}): string {
  const para = (p: string) => `<p style="margin:0 0 16px;white-space:pre-line">${escapeHtml(p)}</p>`;
  const heading = mail.title === undefined ? '' : `<h1 style="font-size:18px;margin:0 0 16px">${escapeHtml(mail.title)}</h1>\n`;
  return `<!doctype html>
<html lang="${escapeHtml(mail.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(mail.subject)}</title></head>
<body style="margin:0;padding:24px;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.5;color:#222">
${heading}${mail.paragraphs.map(para).join('\n')}
<table style="border-collapse:collapse;margin:0 0 16px">${mail.facts
    .map(
      ([k, v]) =>
        `<tr><th style="text-align:left;padding:2px 16px 2px 0;font-weight:600">${escapeHtml(k)}</th><td style="padding:2px 0">${escapeHtml(v)}</td></tr>`,
    )
    .join('')}</table>
${para(mail.closing)}
</body></html>
`;
}
