// The organisation tree of the People section: GET /api/organisations (every page), nested by
// parent_id, each node a disclosure button (aria-expanded) and a button that chooses it. Keyboard:
// Tab/Enter as everywhere; in the tree, ArrowDown/ArrowUp move between the visible organisations,
// ArrowRight opens a node (or goes to its first child), ArrowLeft closes it (or goes to its parent),
// Home/End to the first/last one.
import { api, el } from './admin-dom.js';
import { allPages } from './admin-forms.js';

/** Every organisation as a tree: [{...organisation, children: [...]}], roots first (parent_id 0). */
export async function loadOrganisations() {
  const all = await allPages(api, '/api/organisations', 'organisations', 5000);
  const byParent = new Map();
  for (const o of all) byParent.set(o.parent_id, [...(byParent.get(o.parent_id) ?? []), o]);
  const known = new Set(all.map((o) => o.organisation_id));
  const nest = (o, depth) => ({ ...o, depth, children: (byParent.get(o.organisation_id) ?? []).map((c) => nest(c, depth + 1)) });
  // a manager sees the tops of their subtrees: an organisation whose parent is not shown is a top
  return all.filter((o) => o.parent_id === 0 || !known.has(o.parent_id)).map((o) => nest(o, 0));
}

/** The tree flattened with depth, for the "move to" picker. */
export const flattenTree = (nodes) => nodes.flatMap((n) => [n, ...flattenTree(n.children)]);

/** The ids of `node` and of every organisation below it (never offered as its new parent). */
export const subtreeIds = (node) => new Set(flattenTree([node]).map((n) => n.organisation_id));

/**
 * Draws `roots` into `holder` (a <ul>). `open`: the ids shown expanded (kept across redraws);
 * `chosen`: the id shown as chosen; `onChoose(node, button)` when one is chosen.
 */
export function drawTree(holder, roots, { open, chosen, onChoose }) {
  const item = (n) => {
    const hasChildren = n.children.length > 0;
    const expanded = open.has(n.organisation_id);
    const name = el(
      'button',
      {
        type: 'button',
        class: 'org-name',
        'data-organisation-id': String(n.organisation_id),
        'aria-current': n.organisation_id === chosen ? 'true' : undefined,
        onclick: () => onChoose(n, name),
      },
      n.name,
    );
    const toggle = hasChildren
      ? el(
          'button',
          {
            type: 'button',
            class: 'org-toggle',
            'aria-expanded': String(expanded),
            'aria-label': `${expanded ? 'Collapse' : 'Expand'} ${n.name}`,
            onclick: () => {
              if (open.has(n.organisation_id)) open.delete(n.organisation_id);
              else open.add(n.organisation_id);
              drawTree(holder, roots, { open, chosen, onChoose });
              holder.querySelector(`button.org-name[data-organisation-id="${n.organisation_id}"]`)?.parentElement.querySelector('.org-toggle')?.focus();
            },
          },
          expanded ? '−' : '+',
        )
      : el('span', { class: 'org-toggle-space', 'aria-hidden': 'true' });
    return el(
      'li',
      { 'data-organisation-id': String(n.organisation_id) },
      el('div', { class: 'node' }, toggle, name),
      hasChildren && expanded ? el('ul', { class: 'tree org-tree', 'aria-label': `Below ${n.name}` }, n.children.map(item)) : '',
    );
  };
  holder.replaceChildren(...roots.map(item));
  if (roots.length === 0) holder.append(el('li', { class: 'meta' }, 'no organisations you may see'));
  if (!holder.dataset.keys) {
    holder.dataset.keys = '1';
    holder.addEventListener('keydown', (ev) => treeKeys(holder, ev));
  }
}

/** Arrow keys between the visible organisations of the tree (see the module's comment). */
function treeKeys(holder, ev) {
  const names = [...holder.querySelectorAll('button.org-name')];
  const current = ev.target.closest('li')?.querySelector(':scope > .node > button.org-name');
  const at = names.indexOf(current);
  if (at < 0) return;
  const toggle = current.parentElement.querySelector('.org-toggle');
  const go = (b) => {
    if (!b) return;
    ev.preventDefault();
    b.focus();
  };
  switch (ev.key) {
    case 'ArrowDown':
      return go(names[at + 1]);
    case 'ArrowUp':
      return go(names[at - 1]);
    case 'Home':
      return go(names[0]);
    case 'End':
      return go(names[names.length - 1]);
    case 'ArrowRight':
      if (toggle?.getAttribute('aria-expanded') === 'false') {
        ev.preventDefault();
        toggle.click();
        holder.querySelector(`button.org-name[data-organisation-id="${current.dataset.organisationId}"]`)?.focus();
        return;
      }
      return go(current.closest('li').querySelector(':scope > ul button.org-name'));
    case 'ArrowLeft':
      if (toggle?.getAttribute('aria-expanded') === 'true') {
        ev.preventDefault();
        toggle.click();
        holder.querySelector(`button.org-name[data-organisation-id="${current.dataset.organisationId}"]`)?.focus();
        return;
      }
      return go(current.closest('ul')?.closest('li')?.querySelector(':scope > .node > button.org-name'));
    default:
  }
}
