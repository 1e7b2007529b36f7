// The competence form: the fields every competence has, and those of its type only (start URL for
// e-courses, who checks a checklist item, the parent of a module, checklist item or question).
import { api } from './admin-dom.js';
import { entityForm } from './admin-forms.js';
import { indented, lookups } from './admin-lookups.js';

/** The parent type each nested type belongs to (the API refuses other parents with a 420). */
export const PARENT_TYPE = { module: 'course', checklist_item: 'checklist', question: 'survey' };
/** What a parent calls the children it can get. */
export const CHILD_OF = {
  course: { type: 'module', what: 'module' },
  checklist: { type: 'checklist_item', what: 'checklist item' },
  survey: { type: 'question', what: 'question' },
};

let types = null;
export async function competenceTypes() {
  if (!types) {
    const { status, data } = await api('GET', '/api/competencetypes');
    types = status === 200 ? data.competencetypes : [];
  }
  return types;
}

const isType =
  (...t) =>
  (v) =>
    t.includes(v.type);

/** The form's values for competence `c` (full view): ids of its categories, custom attributes one per field. */
function valuesOf(c) {
  const v = { ...c, category_ids: (c.categories ?? []).map((k) => k.category_id) };
  for (const [name, value] of Object.entries(c.custom_attributes ?? {})) v[`custom_attributes.${name}`] = value;
  return v;
}

/**
 * A form for a new competence (`competence` undefined; `defaults` may fix type and parent, as
 * "Add module" does) or for editing one (full view). `onSaved(competence, created)` after a 200.
 */
export async function competenceForm({ competence, defaults = {}, onSaved, onClose }) {
  const [typeList, groups, categories, competences, custom] = await Promise.all([
    competenceTypes(),
    lookups.groups(),
    lookups.categories(),
    lookups.competences(),
    lookups.customAttributes('competence'),
  ]);
  const editing = !!competence;
  const values = editing ? valuesOf(competence) : { active: true, ...defaults };
  const fixedType = !editing && defaults.type && defaults.parent_id;
  const typeOptions = typeList.filter((t) => !fixedType || t.competence_type_id === defaults.type).map((t) => ({ value: t.competence_type_id, label: t.name }));
  const fields = [
    { name: 'title', label: 'Title', required: true, maxlength: '255' },
    {
      name: 'type',
      label: 'Type',
      type: 'select',
      required: true,
      options: typeOptions,
      hint: editing ? 'changes only while nobody holds or is registered on it' : undefined,
    },
    {
      name: 'parent_id',
      label: 'Belongs to',
      type: 'select',
      numeric: true,
      visible: (v) => !!PARENT_TYPE[v.type],
      // every possible parent: the API checks that the parent's type allows the child's
      options: [
        { value: '', label: '(choose)' },
        ...competences.filter((c) => Object.values(PARENT_TYPE).includes(c.type)).map((c) => ({ value: c.competence_id, label: `${c.title} (${c.type})` })),
      ],
      hint: 'a module belongs to a course, a checklist item to a checklist, a question to a survey',
    },
    { name: 'description', label: 'Description', type: 'textarea' },
    {
      name: 'lms_start_url',
      label: 'Start URL in the learning system (http or https)',
      type: 'url',
      visible: isType('ecourse'),
      placeholder: 'https://lms.example.com/course/42',
    },
    {
      name: 'checked_by',
      label: 'Checked by',
      type: 'select',
      visible: isType('checklist_item'),
      default: 'self',
      options: [
        { value: 'self', label: 'the person (self)' },
        { value: 'manager', label: 'the manager' },
        { value: 'both', label: 'both' },
      ],
    },
    {
      name: 'competence_group_id',
      label: 'Competence group',
      type: 'select',
      numeric: true,
      options: [{ value: '', label: '(none)' }, ...groups.map((g) => ({ value: g.competence_group_id, label: indented(g.depth, g.name) }))],
    },
    { name: 'valid_months', label: 'Valid for (months; empty: does not expire)', type: 'number', min: '1', step: '1', inputmode: 'numeric' },
    { name: 'owner_user_name', label: 'Owner (user name)', autocomplete: 'off' },
    { name: 'instructor_user_name', label: 'Instructor (user name)', autocomplete: 'off' },
    { name: 'category_ids', label: 'Categories', type: 'checks', options: categories.map((k) => ({ value: k.category_id, label: indented(k.depth, k.name) })) },
    ...custom.map((d) => ({
      name: `custom_attributes.${d.name}`,
      label: d.label || d.name,
      type: d.type === 'boolean' ? 'checkbox' : d.type === 'number' ? 'number' : 'text',
      step: d.type === 'number' ? 'any' : undefined,
    })),
    { name: 'active', label: 'Active (can be registered and scheduled)', type: 'checkbox' },
  ];
  return entityForm({
    id: editing ? `competence-form-${competence.competence_id}` : 'competence-form',
    heading: editing ? `Edit ${competence.title}` : defaults.parent_id ? `New ${defaults.what ?? 'child'} of ${defaults.parentTitle}` : 'New competence',
    prefix: 'competence_data',
    fields,
    values,
    editing,
    submitLabel: editing ? 'Save competence' : 'Create competence',
    onClose,
    onSubmit: (body) =>
      editing
        ? api('PUT', `/api/competences/${competence.competence_id}`, { competence_data: body })
        : api('POST', '/api/competences', { competence_data: body }),
    onDone: (data) => onSaved(data.competences[0], !editing, data.message),
  });
}
