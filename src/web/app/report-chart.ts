import { DateTime } from 'luxon';
import { type Html, html } from '../kit/html.js';
import { formats, t } from '../../i18n/index.js';

/** One bar: a local day (or a week's first day) and its tracked seconds. */
export interface ChartBar {
  key: string;
  seconds: number;
}

/** The chart's buckets: days for a range of up to 31 days, else weeks (starting on the member's first day). */
export const chartUnit = (from: string, to: string): 'day' | 'week' =>
  DateTime.fromISO(to).diff(DateTime.fromISO(from), 'days').days < 31 ? 'day' : 'week';

/** Every bucket of the range, in order (zero where nothing was tracked): the summary lists only those with time. */
export function chartBuckets(from: string, to: string, unit: 'day' | 'week', weekStart: 'monday' | 'sunday', seconds: Map<string, number>) {
  const last = DateTime.fromISO(to);
  let at = DateTime.fromISO(from);
  if (unit === 'week') at = at.minus({ days: weekStart === 'monday' ? at.weekday - 1 : at.weekday % 7 });
  const bars: ChartBar[] = [];
  while (at <= last && bars.length < 400) {
    const key = at.toISODate() as string;
    bars.push({ key, seconds: seconds.get(key) ?? 0 });
    at = at.plus(unit === 'day' ? { days: 1 } : { weeks: 1 });
  }
  return bars;
}

/** A step for the hour lines: 1, 2, 5, 10, 20, 50… hours, about four lines up to the highest bar. */
function hourStep(maxHours: number): number {
  for (const step of [0.5, 1, 2, 5, 10, 20, 25, 50, 100, 200, 500]) if (maxHours / step <= 4) return step;
  return 1000;
}

/** The two drawings: wide for a desktop, narrow (taller, fewer labels) for a phone; the style sheet shows one. */
const SIZES = {
  wide: { W: 960, H: 260, LEFT: 44, BOTTOM: 30, TOP: 10, labels: 16 },
  narrow: { W: 400, H: 280, LEFT: 40, BOTTOM: 30, TOP: 10, labels: 7 },
} as const;

/** What a bar is called: `Mon 23 Nov` (a day), `week of 23 Nov` (a week). */
export const barName = (bar: ChartBar, unit: 'day' | 'week') =>
  unit === 'day' ? formats().dayMonth(bar.key) : t('reports.chart.weekOf', { day: formats().date(bar.key) });

/**
 * The range's days or weeks as columns, drawn by the server (no script, no style attribute: the
 * CSP allows neither). Scales with its box (viewBox), in two proportions (the style sheet shows the
 * narrow one on phones). Each column has a title (a tooltip, and read by screen readers); the same
 * figures stand in a table under it.
 */
export function barChart(bars: ChartBar[], unit: 'day' | 'week', caption: string, size: keyof typeof SIZES): Html {
  const { W, H, LEFT, BOTTOM, TOP, labels } = SIZES[size];
  const maxHours = Math.max(...bars.map((b) => b.seconds / 3600), 0);
  const step = hourStep(Math.max(maxHours, 1));
  const top = Math.max(step, Math.ceil(maxHours / step) * step);
  const plotW = W - LEFT - 8;
  const plotH = H - TOP - BOTTOM;
  const slot = plotW / Math.max(bars.length, 1);
  const y = (hours: number) => TOP + plotH - (hours / top) * plotH;
  // Labels: every bar when they fit, else every nth.
  const every = Math.max(1, Math.ceil(bars.length / labels));
  const lines = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  const label = (bar: ChartBar) => {
    const day = DateTime.fromISO(bar.key).setLocale(formats().locale);
    if (unit === 'week') return day.toFormat(formats().language === 'de' ? 'd.M.' : 'd LLL');
    // A narrow week names its days by one letter in English (M 23) and by two in German, whose one letters repeat (Mo, Mi).
    return bars.length <= 7 ? day.toFormat(size === 'wide' || formats().language === 'de' ? 'ccc d' : 'ccccc d') : day.toFormat('d');
  };
  const fmtHours = (h: number) => t('reports.chart.hours', { hours: formats().decimal(h, 1) });
  return html`<svg
    class="chart ${size}"
    viewBox="0 0 ${W} ${H}"
    width="100%"
    role="img"
    aria-labelledby="chart-title-${size}"
    focusable="false"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="chart-title-${size}">${caption}</title>
    ${lines.map(
      (h) =>
        html`<line class="grid" x1="${LEFT}" x2="${W - 8}" y1="${y(h).toFixed(1)}" y2="${y(h).toFixed(1)}" /><text
            class="axis"
            x="${LEFT - 6}"
            y="${(y(h) + 4).toFixed(1)}"
            text-anchor="end"
          >
            ${fmtHours(h)}
          </text>`,
    )}
    ${bars.map((bar, i) => {
      const x = LEFT + i * slot;
      const hours = bar.seconds / 3600;
      const barTop = y(hours);
      const shown = i % every === 0;
      return html`<g class="bar">
        <title>${barName(bar, unit)}: ${formats().duration(bar.seconds)}</title>
        <rect class="hit" x="${(x + 1).toFixed(1)}" y="${TOP}" width="${Math.max(slot - 2, 1).toFixed(1)}" height="${plotH}" />
        <rect
          class="col"
          x="${(x + slot * 0.15).toFixed(1)}"
          y="${barTop.toFixed(1)}"
          width="${Math.max(slot * 0.7, 1).toFixed(1)}"
          height="${Math.max(TOP + plotH - barTop, 0).toFixed(1)}"
          rx="2"
        />
        ${
          shown
            ? html`<text class="axis" x="${(x + slot / 2).toFixed(1)}" y="${H - BOTTOM + 18}" text-anchor="middle"> ${label(bar)} </text>`
            : ''
        }
      </g>`;
    })}
  </svg>`;
}
