// Inline forms for the catalogue and the calendar: labelled fields, each with its own error line,
// the API's 419/420 message placed next to the field its parameter names (`competence_data[title]`,
// `event_data[custom_attributes][region]`), Escape or Cancel closes and hands focus back.
import { el, uid } from './admin-dom.js';

/** `event_data[location_id]` -> `location_id`; `x_data[custom_attributes][region]` -> `custom_attributes.region`; others as they are. */
export function fieldOfParameter(parameter, prefix) {
  if (!parameter) return null;
  const m = new RegExp(`^${prefix}\\[([^\\]]+)\\](?:\\[([^\\]]+)\\])?`).exec(parameter);
  if (!m) return parameter;
  return m[1] === 'custom_attributes' && m[2] ? `custom_attributes.${m[2]}` : m[1];
}

/** Every problem of an error envelope as {parameter, message}: the first is the envelope's own message. */
export function problemsOf(data) {
  const named = (text) => /(?:malformed|missing) parameter:? ([^\s:]+)/.exec(text)?.[1] ?? null;
  const first = { parameter: data.parameter ?? named(data.message ?? ''), message: data.message ?? 'failed' };
  const rest = (data.problems ?? []).slice(1).map((text) => ({ parameter: text.split(' ')[0], message: `malformed parameter ${text}` }));
  return [first, ...rest];
}

const toInput = (v) => (v === null || v === undefined ? '' : String(v));

function control(f, id, errId, value) {
  const common = { id, name: f.name, 'aria-describedby': errId, required: f.required || undefined };
  switch (f.type) {
    case 'textarea':
      return el('textarea', { ...common, rows: '3' }, toInput(value));
    case 'select': {
      const s = el(
        'select',
        common,
        (f.options ?? []).map((o) => el('option', { value: String(o.value) }, o.label)),
      );
      s.value = toInput(value);
      return s;
    }
    case 'checkbox': {
      const c = el('input', { ...common, type: 'checkbox' });
      c.checked = value === true || value === 1 || value === '1';
      return c;
    }
    case 'checks': {
      const chosen = new Set((value ?? []).map(String));
      return el(
        'fieldset',
        { class: 'checks-field', id, 'aria-describedby': errId },
        el('legend', {}, f.label),
        (f.options ?? []).map((o) =>
          el(
            'label',
            { class: 'inline' },
            el('input', { type: 'checkbox', name: f.name, value: String(o.value), checked: chosen.has(String(o.value)) }),
            o.label,
          ),
        ),
      );
    }
    default: {
      const attrs = { ...common, type: f.type ?? 'text', value: toInput(value) };
      for (const k of ['min', 'max', 'step', 'placeholder', 'maxlength', 'autocomplete', 'list', 'inputmode']) if (f[k] !== undefined) attrs[k] = f[k];
      return el('input', attrs);
    }
  }
}

/** The value a field holds now, as the API wants it; '' for an empty optional field. */
function valueOf(f, box) {
  if (f.type === 'checks') return [...box.querySelectorAll('input:checked')].map((c) => Number(c.value));
  const input = box.querySelector(`[name="${f.name}"]`);
  if (f.type === 'checkbox') return input.checked;
  const v = input.value.trim();
  if (v === '') return '';
  if (f.type === 'number' || f.numeric) return Number(v);
  return v;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const normal = (f, v) => {
  if (f.type === 'checks') return [...(v ?? [])].map(Number).sort((x, y) => x - y);
  if (f.type === 'checkbox') return v === true || v === 1 || v === '1';
  if (v === null || v === undefined || v === '') return '';
  return f.type === 'number' || f.numeric ? Number(v) : String(v);
};

/**
 * A form of `fields` for the object `prefix` names. `values`: the object being edited (then only
 * changed fields are sent, a cleared one as null) or defaults for a new one. `visible(values)`
 * per field hides what does not apply (e.g. lms_start_url unless the type is ecourse); hidden
 * fields are not sent. `onSubmit(body)` returns the API's {status, data}; 200 calls `onDone(data)`.
 */
export function entityForm({
  id,
  heading,
  prefix,
  fields,
  values = {},
  editing = false,
  submitLabel,
  closeLabel = 'Cancel',
  onSubmit,
  onDone,
  onClose,
  before = [],
}) {
  const general = el('p', { class: 'error', role: 'alert' });
  const boxes = new Map();
  const headingId = uid('hf');
  const form = el('form', { class: 'entity-form', id, 'aria-labelledby': headingId, novalidate: true });
  for (const f of fields) {
    const inputId = uid(`f-${f.name}`);
    const errId = uid('fe');
    const input = control(f, inputId, errId, values[f.name] ?? f.default);
    const box =
      f.type === 'checks'
        ? el('div', { class: 'field wide-field', 'data-field': f.name }, input)
        : el(
            'div',
            { class: `field${f.type === 'checkbox' ? ' check-field' : ''}${f.type === 'textarea' ? ' wide-field' : ''}`, 'data-field': f.name },
            f.type === 'checkbox' ? el('label', { for: inputId, class: 'inline' }, input, ' ', f.label) : el('label', { for: inputId }, f.label),
            f.type === 'checkbox' ? '' : input,
          );
    if (f.hint) box.append(el('span', { class: 'meta hint' }, f.hint));
    box.append(el('p', { class: 'error field-error', id: errId }));
    boxes.set(f.name, box);
  }
  const current = () => Object.fromEntries(fields.map((f) => [f.name, valueOf(f, boxes.get(f.name))]));
  const refresh = () => {
    const now = { ...values, ...current() };
    for (const f of fields) boxes.get(f.name).hidden = f.visible ? !f.visible(now) : false;
  };
  form.addEventListener('change', refresh);
  const clearErrors = () => {
    general.textContent = '';
    for (const box of boxes.values()) {
      box.querySelector('.field-error').textContent = '';
      box.querySelector('[aria-invalid]')?.removeAttribute('aria-invalid');
    }
  };
  const read = () => {
    const body = {};
    for (const f of fields) {
      if (boxes.get(f.name).hidden || f.readOnly) continue;
      const v = valueOf(f, boxes.get(f.name));
      if (editing && same(normal(f, v), normal(f, values[f.name]))) continue;
      if (f.name.startsWith('custom_attributes.')) {
        // a custom attribute left empty is not sent; emptied, it is sent empty, which removes it
        if (v !== '' || editing) (body.custom_attributes ??= {})[f.name.slice(18)] = v;
        continue;
      }
      if (v === '' || (f.type === 'checks' && v.length === 0 && !editing)) {
        if (editing) body[f.name] = null;
        continue;
      }
      body[f.name] = f.type === 'checkbox' ? (v ? 1 : 0) : v;
    }
    return body;
  };
  /** Puts each problem next to its field (the first one focused); the rest, and a 403/409, above the buttons. */
  const showErrors = (data) => {
    let first = null;
    const elsewhere = [];
    for (const p of problemsOf(data)) {
      const box = boxes.get(fieldOfParameter(p.parameter, prefix));
      if (!box || box.hidden) {
        elsewhere.push(p.message);
        continue;
      }
      box.querySelector('.field-error').textContent = p.message;
      const input = box.querySelector('input, select, textarea');
      input?.setAttribute('aria-invalid', 'true');
      first ??= input;
    }
    general.textContent = elsewhere.join('; ');
    (first ?? general).focus?.();
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearErrors();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const { status, data } = await onSubmit(read());
      if (status === 200) await onDone(data);
      else showErrors(data);
    } finally {
      button.disabled = false;
    }
  });
  form.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      ev.preventDefault();
      ev.stopPropagation();
      onClose();
    }
  });
  form.append(
    el('h4', { id: headingId }, heading),
    ...before,
    el('div', { class: 'fields' }, [...boxes.values()]),
    general,
    el(
      'div',
      { class: 'form-buttons' },
      el('button', { type: 'submit' }, submitLabel),
      el('button', { type: 'button', class: 'close', onclick: () => onClose() }, closeLabel),
    ),
  );
  refresh();
  return {
    node: form,
    showErrors,
    focus: () => form.querySelector('.field:not([hidden]) input, .field:not([hidden]) select, .field:not([hidden]) textarea')?.focus(),
  };
}

/**
 * One open editor per holder: opening another closes the first. `build(close)` makes the form
 * (may be async); `opener` gets focus back when it is closed without a change (Escape, Cancel).
 */
export async function openEditor(holder, build, opener) {
  holder.querySelector(':scope > .entity-form')?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
  let editor;
  const close = () => {
    editor?.node.remove();
    if (opener?.isConnected) opener.focus();
  };
  editor = await build(close);
  holder.append(editor.node);
  editor.focus();
  return editor;
}

/**
 * A button that asks once more before it acts ("Delete" -> "Confirm delete"); Escape or leaving it
 * resets it. Its accessible name starts with what it shows: "Delete Forklift", "Confirm delete Forklift".
 */
export function confirmButton(label, target, act, attrs = {}) {
  let armed = false;
  const reset = () => {
    armed = false;
    button.textContent = label;
    button.setAttribute('aria-label', `${label} ${target}`);
  };
  const button = el(
    'button',
    {
      type: 'button',
      ...attrs,
      'aria-label': `${label} ${target}`,
      onblur: reset,
      onkeydown: (ev) => {
        if (ev.key === 'Escape' && armed) {
          ev.stopPropagation();
          reset();
        }
      },
      onclick: async () => {
        if (!armed) {
          armed = true;
          button.textContent = `Confirm ${label.toLowerCase()}`;
          button.setAttribute('aria-label', `Confirm ${label.toLowerCase()} ${target}`);
          return;
        }
        reset();
        await act();
      },
    },
    label,
  );
  return button;
}

/** Every page of a list call (limit 100), for the pickers; [] with the message on failure. */
export async function allPages(api, url, resource, max = 1000) {
  const out = [];
  for (let offset = 0; offset < max; offset += 100) {
    const { status, data } = await api('GET', `${url}${url.includes('?') ? '&' : '?'}limit=100&offset=${offset}`);
    if (status !== 200) return out;
    out.push(...data[resource]);
    if (data[resource].length < 100) break;
  }
  return out;
}
