// Helpers every section module uses: element building without innerHTML (values are data,
// never markup) and the same-origin API call that always yields the envelope.

export const $ = (sel, root = document) => root.querySelector(sel);

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

export async function api(method, url, body) {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data;
  try {
    data = await res.json();
  } catch {
    data = { valid: false, message: `unexpected answer (HTTP ${res.status})` };
  }
  return { status: res.status, data };
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

let ids = 0;
/** Unique ids for label/aria links inside generated rows. */
export const uid = (prefix) => `${prefix}-${++ids}`;

/** A wide table that scrolls sideways on a phone instead of widening the page. */
export const scroller = (label, table) => el('div', { class: 'scroll', role: 'region', 'aria-label': label, tabindex: '0' }, table);

/** A labelled form field: <label>text <input></label>. */
export const field = (text, input) => el('label', {}, text, ' ', input);
