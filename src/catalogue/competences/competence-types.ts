/** The competence types of the catalogue (competences.type). */
export const COMPETENCE_TYPES = [
  { id: 'course', name: 'Course', course_template: true, nested: false },
  { id: 'group', name: 'Course group', course_template: true, nested: false },
  { id: 'module', name: 'Module course', course_template: false, nested: true },
  { id: 'ecourse', name: 'E-course', course_template: false, nested: false },
  { id: 'checklist', name: 'Checklist', course_template: false, nested: false },
  { id: 'checklist_item', name: 'Checklist item', course_template: false, nested: true },
  { id: 'signature', name: 'Signature', course_template: false, nested: false },
  { id: 'formal', name: 'Formal competence', course_template: false, nested: false },
  { id: 'skill', name: 'Skill', course_template: false, nested: false },
  { id: 'survey', name: 'Survey', course_template: false, nested: false },
  { id: 'question', name: 'Survey question', course_template: false, nested: true },
] as const;

export type CompetenceType = (typeof COMPETENCE_TYPES)[number]['id'];
export const COMPETENCE_TYPE_IDS = COMPETENCE_TYPES.map((t) => t.id) as unknown as readonly [CompetenceType, ...CompetenceType[]];
export const COURSE_TEMPLATE_TYPES: CompetenceType[] = ['course', 'group'];
