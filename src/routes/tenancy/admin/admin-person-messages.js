// A person's language and notification preferences (People section, issue 39): opened from the
// person's row ("Language and notices"), under the person table. The language is person_data[language]
// (PUT /api/persons/:user_name; a BCP 47 tag, the API's 420 under the field); the preferences are
// GET / PUT /api/persons/:user_name/notificationpreferences, one select per notice type. A required
// notice (security, or the tenant's messages.required_notices) offers no "none" and says why.
// Escape or Close closes the panel and gives focus back to the row's button.
import { api, el, field, scroller, uid } from './admin-dom.js';

const LANGUAGES = [
  ['nb', 'Norwegian Bokmål'],
  ['nn', 'Norwegian Nynorsk'],
  ['sv', 'Swedish'],
  ['da', 'Danish'],
  ['fi', 'Finnish'],
  ['en', 'English'],
  ['de', 'German'],
];
const MEDIA = [
  ['email', 'e-mail'],
  ['sms', 'SMS'],
  ['both', 'e-mail and SMS'],
  ['none', 'none (turned off)'],
];
const LABELS = {
  login_created: 'New account with its login',
  password_reset: 'New password',
  contact_changed: 'Password, e-mail or mobile changed',
  sign_on: 'Signed on (calendar invite)',
  sign_off: 'Signed off',
  event_changed: 'Course time or place changed',
  waitlist_promotion: 'Seat from the wait list',
  event_cancelled: 'Course cancelled',
  expiry_reminder: 'Competence about to expire',
  scheduled_report: 'Scheduled report',
};
const REQUIRED_BY = { security: 'required: a security notice', tenant: 'required by this organisation' };

/** Opens the panel of `person` in `holder`; `opener` gets focus back when it closes. */
export async function showPersonMessages(holder, person, opener) {
  const who = [person.firstname, person.lastname].filter(Boolean).join(' ') || person.user_name;
  const path = `/api/persons/${encodeURIComponent(person.user_name)}`;
  const close = () => {
    holder.replaceChildren();
    opener?.focus();
  };
  const headingId = uid('h-person-messages');
  const error = el('p', { class: 'error', id: 'person-messages-error', role: 'alert' });
  const status = el('p', { class: 'saved', id: 'person-messages-status', role: 'status' });

  // the language
  const full = await api('GET', `${path}?view=full`);
  const languageError = el('span', { class: 'field-error', id: uid('language-error') });
  const language = el('input', {
    name: 'language',
    id: 'person-language',
    list: 'language-tags',
    autocomplete: 'off',
    size: 12,
    'aria-describedby': `${languageError.id} language-hint`,
    value: full.data.persons?.[0]?.language ?? '',
  });
  const languageForm = el(
    'form',
    {
      id: 'person-language-form',
      class: 'inline-fields',
      'aria-label': `Language of ${who}`,
      onsubmit: async (ev) => {
        ev.preventDefault();
        const { status: s, data } = await api('PUT', path, { person_data: { language: language.value.trim() } });
        if (s !== 200) {
          languageError.textContent = data.message;
          language.setAttribute('aria-invalid', 'true');
          language.focus();
          return;
        }
        languageError.textContent = '';
        language.removeAttribute('aria-invalid');
        language.value = data.persons[0].language ?? '';
        status.textContent = `Language of ${person.user_name} saved: ${language.value || "the organisation's language"}`;
      },
    },
    el('div', { class: 'field', 'data-field': 'language' }, field('Language (BCP 47, e.g. nb, sv, en-GB)', language), languageError),
    el(
      'datalist',
      { id: 'language-tags' },
      LANGUAGES.map(([tag, name]) => el('option', { value: tag }, name)),
    ),
    el('button', { type: 'submit' }, 'Save language'),
    el('p', { class: 'meta', id: 'language-hint' }, "Empty: notices in the organisation's language."),
  );

  // the preferences
  const prefs = await api('GET', `${path}/notificationpreferences`);
  if (prefs.status !== 200) error.textContent = prefs.data.message;
  const rows = prefs.data.notificationpreferences ?? [];
  const selects = new Map();
  const body = el(
    'tbody',
    {},
    rows.map((p) => {
      const id = `pref-${p.notice_type}`;
      const note = p.required ? el('span', { class: 'meta locked', id: `${id}-note` }, REQUIRED_BY[p.required_by] ?? 'required') : '';
      const select = el(
        'select',
        { id, name: p.notice_type, 'aria-describedby': p.required ? `${id}-note` : undefined, 'data-required': p.required ? 'true' : undefined },
        MEDIA.filter(([m]) => !(p.required && m === 'none')).map(([m, text]) =>
          el('option', { value: m, selected: m === p.medium }, m === p.default ? `${text} (default)` : text),
        ),
      );
      selects.set(p.notice_type, { select, was: p.medium });
      return el(
        'tr',
        { 'data-notice-type': p.notice_type, class: p.required ? 'required' : '' },
        el('th', { scope: 'row' }, el('label', { for: id }, LABELS[p.notice_type] ?? p.notice_type)),
        el('td', {}, select),
        el('td', {}, note),
      );
    }),
  );
  const prefsForm = el(
    'form',
    {
      id: 'person-prefs-form',
      'aria-labelledby': headingId,
      onsubmit: async (ev) => {
        ev.preventDefault();
        const changed = Object.fromEntries([...selects].filter(([, s]) => s.select.value !== s.was).map(([type, s]) => [type, s.select.value]));
        if (!Object.keys(changed).length) {
          status.textContent = 'Nothing changed';
          return;
        }
        const { status: s, data } = await api('PUT', `${path}/notificationpreferences`, { preferences: changed });
        if (s !== 200) {
          error.textContent = data.message;
          status.textContent = '';
          const named = /preferences\[(\w+)\]/.exec(data.message ?? '')?.[1];
          selects.get(named)?.select.focus();
          return;
        }
        error.textContent = '';
        for (const p of data.notificationpreferences) {
          const s2 = selects.get(p.notice_type);
          if (s2) {
            s2.select.value = p.medium;
            s2.was = p.medium;
          }
        }
        status.textContent = data.message ?? 'notification preferences updated';
      },
    },
    scroller(
      `Notification preferences of ${who}`,
      el(
        'table',
        { class: 'grid', id: 'person-prefs-table' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Notice', 'Sent by', 'Note'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        body,
      ),
    ),
    el(
      'div',
      { class: 'buttons' },
      el('button', { type: 'submit' }, 'Save preferences'),
      el('button', { type: 'button', class: 'close', onclick: close }, 'Close'),
    ),
  );

  const panel = el(
    'section',
    {
      id: 'person-messages',
      'aria-labelledby': headingId,
      onkeydown: (ev) => {
        if (ev.key === 'Escape') close();
      },
    },
    el('h5', { id: headingId, tabindex: '-1' }, `Language and notices of ${who}`),
    error,
    status,
    languageForm,
    prefsForm,
  );
  holder.replaceChildren(panel);
  language.focus();
}
