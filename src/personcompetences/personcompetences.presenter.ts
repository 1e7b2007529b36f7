import type { CompetenceState } from './competence-state';

const COURSE_TYPES = ['course', 'group', 'module', 'ecourse'];

/** A PersonCompetence: the competence as held (or missed) by one person. */
export function presentPersonCompetence(s: CompetenceState, userName: string, view: 'simple' | 'full', extra: Record<string, unknown> = {}) {
  const c = s.competence;
  const r = s.registration;
  const out: Record<string, unknown> = {
    personcompetence_id: r?.id ?? null,
    competence_id: c.id,
    title: c.title,
    type: c.type,
    user_name: userName,
    state: s.held ? 'passed' : 'missing',
    reason: s.reason,
    passed: r?.passed ?? null,
    date: r?.date ?? null,
    valid_until: r?.valid_until ?? null,
    ...extra,
  };
  if (c.type === 'checklist_item') Object.assign(out, { checked: r ? r.checked === true || r.override : false, checked_by: c.checked_by });
  if (c.type === 'signature') out.signed = r?.signed === true;
  if (c.type === 'skill') out.skill_level = r?.skill_level ?? null;
  if (c.type === 'formal') Object.assign(out, { school: r?.school ?? null, graduation_year: r?.graduation_year ?? null });
  if (COURSE_TYPES.includes(c.type)) Object.assign(out, { grade: r?.grade ?? null, show_course_diploma: r?.show_course_diploma === true });
  if (c.type === 'checklist') out.children = s.children.map((k) => presentPersonCompetence(k, userName, 'simple'));
  if (view === 'full') {
    Object.assign(out, {
      comments: r?.comments ?? null,
      override: r?.override ?? false,
      registered_by: r?.registered_by_user_name ?? null,
      registered_at: r?.created_at ?? null,
    });
  }
  return out;
}
