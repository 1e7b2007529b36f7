// Charts of the Overview as plain SVG built with createElementNS (no library, no innerHTML, no
// style attributes: colours come from admin.css classes, so the strict CSP stays as it is).
// A chart is an <svg role="group"> named by its <title> and described by its <desc>; each bar is
// an SVG link (<a href>) with its own accessible name, so a keyboard reaches every bar. The same
// numbers come as a table (`dataTable`) with the same links.
import { el, uid } from './admin-dom.js';

const NS = 'http://www.w3.org/2000/svg';

/** An SVG element: attributes as given (never `style`), children appended as nodes or text. */
export function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// small enough that the text stays readable when a phone shrinks the chart to ~300 px
const WIDTH = 340;

/**
 * Horizontal bars, one per row: its label above, the bar below with the value's text at its end.
 * `bars`: [{ label, indent, value, max, text, href, name, cls }] (`name`: the link's accessible name,
 * which starts with its visible text, label then text, as WCAG 2.5.3 "label in name" asks).
 */
export function barChart({ id, title, desc, bars, emptyText = 'nothing to show' }) {
  const titleId = uid(`${id}-title`);
  const descId = uid(`${id}-desc`);
  const ROW = 40;
  const height = Math.max(1, bars.length) * ROW + 6;
  const chart = svg(
    'svg',
    {
      id,
      class: 'chart',
      viewBox: `0 0 ${WIDTH} ${height}`,
      role: 'group',
      'aria-labelledby': titleId,
      'aria-describedby': descId,
      preserveAspectRatio: 'xMinYMin meet',
    },
    svg('title', { id: titleId }, title),
    svg('desc', { id: descId }, desc),
  );
  if (bars.length === 0) chart.append(svg('text', { x: 0, y: 24, class: 'chart-label' }, emptyText));
  bars.forEach((b, i) => {
    const y = i * ROW;
    const usable = WIDTH - 70;
    const w = b.max > 0 ? Math.max(b.value > 0 ? 2 : 0, Math.round((usable * b.value) / b.max)) : 0;
    // text nodes end in a space: a link's visible text reads "Operations 67% (4 of 6)", which its name repeats first
    const parts = [
      svg('rect', { x: 0, y, width: WIDTH, height: ROW - 2, class: 'chart-hit' }),
      svg('text', { x: (b.indent ?? 0) * 12, y: y + 14, class: 'chart-label' }, `${b.label} `),
      svg('rect', { x: 0, y: y + 20, width: usable, height: 14, class: 'chart-track' }),
      svg('rect', { x: 0, y: y + 20, width: w, height: 14, class: `chart-bar ${b.cls ?? ''}` }),
      svg('text', { x: w + 6, y: y + 32, class: 'chart-value' }, `${b.text} `),
    ];
    chart.append(b.href ? svg('a', { href: b.href, class: 'chart-link', 'aria-label': b.name ?? `${b.label}: ${b.text}` }, parts) : svg('g', {}, parts));
  });
  return chart;
}

/**
 * Columns over time: one column per window (the timeline of what expires), the window's end day
 * under it and its count above. `columns`: [{ label, sub, value, href, name }].
 */
export function timelineChart({ id, title, desc, columns }) {
  const titleId = uid(`${id}-title`);
  const descId = uid(`${id}-desc`);
  const H = 150;
  const BASE = 110;
  const max = Math.max(1, ...columns.map((c) => c.value));
  const step = WIDTH / columns.length;
  const chart = svg(
    'svg',
    {
      id,
      class: 'chart timeline',
      viewBox: `0 0 ${WIDTH} ${H}`,
      role: 'group',
      'aria-labelledby': titleId,
      'aria-describedby': descId,
      preserveAspectRatio: 'xMinYMin meet',
    },
    svg('title', { id: titleId }, title),
    svg('desc', { id: descId }, desc),
    svg('line', { x1: 0, y1: BASE, x2: WIDTH, y2: BASE, class: 'chart-axis' }),
  );
  columns.forEach((c, i) => {
    const x = i * step;
    const h = Math.round((80 * c.value) / max);
    // in reading order (label, day, count), each ending in a space: the name starts with the same words
    const parts = [
      svg('rect', { x, y: 0, width: step, height: H, class: 'chart-hit' }),
      svg('rect', { x: x + step * 0.2, y: BASE - h, width: step * 0.6, height: h, class: 'chart-bar expiring' }),
      svg('text', { x: x + step / 2, y: BASE + 18, class: 'chart-label', 'text-anchor': 'middle' }, `${c.label} `),
      svg('text', { x: x + step / 2, y: BASE + 36, class: 'chart-sub', 'text-anchor': 'middle' }, `${c.sub} `),
      svg('text', { x: x + step / 2, y: BASE - h - 6, class: 'chart-value', 'text-anchor': 'middle' }, `${c.value} `),
    ];
    chart.append(c.href ? svg('a', { href: c.href, class: 'chart-link', 'aria-label': c.name }, parts) : svg('g', {}, parts));
  });
  return chart;
}

/**
 * The numbers of a chart as a table inside a disclosure ("Show as a table"), scrolling sideways on
 * a phone. `head`: column headings; `rows`: arrays of cells (a cell may be a node, e.g. a link).
 */
export function dataTable({ id, caption, head, rows }) {
  const table = el(
    'table',
    { id, class: 'grid chart-table' },
    el('caption', {}, caption),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        head.map((h, i) => el('th', { scope: 'col', class: i === 0 ? '' : 'num' }, h)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.map((r) =>
        el(
          'tr',
          {},
          r.map((c, i) => (i === 0 ? el('th', { scope: 'row' }, c) : el('td', { class: 'num' }, c))),
        ),
      ),
    ),
  );
  return el(
    'details',
    { class: 'chart-numbers' },
    el('summary', {}, `${caption}: as a table`),
    el('div', { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: '0' }, table),
  );
}
