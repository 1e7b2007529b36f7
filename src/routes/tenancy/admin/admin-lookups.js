// What the catalogue's and the calendar's pickers choose from: groups, categories, locations and
// competences, read through the API once and read again after a change (`forget`).
import { api } from './admin-dom.js';
import { allPages } from './admin-forms.js';

const cache = new Map();
const listeners = new Set();

function cached(key, load) {
  if (!cache.has(key)) cache.set(key, load());
  return cache.get(key);
}

/** Drops what is known of `keys` (all when none) and tells the sections that show them. */
export function forget(...keys) {
  if (keys.length === 0) cache.clear();
  for (const k of keys) cache.delete(k);
  for (const fn of listeners) fn(keys);
}

/** `fn(keys)` after each forget(): a section redraws its pickers. */
export const onForget = (fn) => listeners.add(fn);

/** Nested rows (sub_groups / children) flattened with their depth, for indented options. */
function flatten(rows, key, depth = 0) {
  return rows.flatMap((r) => [{ ...r, depth }, ...flatten(r[key] ?? [], key, depth + 1)]);
}

export const lookups = {
  groups: () =>
    cached('groups', async () => {
      const all = await allPages(api, '/api/competencegroups?all=1', 'competencegroups');
      const nest = (parent) => all.filter((g) => g.parent_id === parent).map((g) => ({ ...g, sub_groups: nest(g.competence_group_id) }));
      return flatten(nest(null), 'sub_groups');
    }),
  categories: () => cached('categories', async () => flatten(await allPages(api, '/api/categories?tree=1&view=full', 'categories'), 'children')),
  locations: () => cached('locations', () => allPages(api, '/api/locations', 'locations')),
  /** The organisation tree (parent_id 0 at the top), for an event's host. */
  organisations: () =>
    cached('organisations', async () => {
      const all = await allPages(api, '/api/organisations', 'organisations', 5000);
      const nest = (parent) => all.filter((o) => o.parent_id === parent).map((o) => ({ ...o, children: nest(o.organisation_id) }));
      return flatten(nest(0), 'children');
    }),
  /** Every competence of the catalogue with its children, in the simple view. */
  competences: () => cached('competences', async () => flatten(await allPages(api, '/api/competences?mode=all&view=simple', 'competences'), 'children')),
  /** The tenant's custom attribute definitions for `what` (competence or event), from the config item. */
  customAttributes: (what) =>
    cached(`custom:${what}`, async () => {
      const { status, data } = await api('GET', '/api/configitems/custom_attributes');
      return status === 200 ? (data.configitems[0].value ?? []).filter((d) => d.applies_to.includes(what)) : [];
    }),
};

/** An option label indented by depth (non-breaking spaces: option text cannot be styled). */
export const indented = (depth, text) => `${'\u00a0\u00a0'.repeat(depth)}${text}`;
