import { ApiError } from '../../platform/errors/api-error';
import { PROFILE_COLUMNS } from '../../people';
import type { ImportType } from '../../tenancy';
import { csvCell } from './table-file';

/**
 * The columns of each import type: the API's own field names. A header names some of them, in any
 * order and case; an unknown or repeated column is a 420 before any row is read, a file without
 * the columns its rows are matched by a 419.
 */
export interface ImportColumns {
  columns: readonly string[];
  /** At least one of each group must be a column (how rows are matched or what they need). */
  needs: readonly (readonly string[])[];
  /** The template's sample row, by column. */
  sample: Record<string, string>;
  /** What the type's rows do, for the OpenAPI description. */
  about: string;
}

const PERSON_KEYS = ['user_name', 'extern_person_id'];
const ORGANISATION_REF = ['organisation_id', 'extern_organisation_id'];

export const IMPORT_COLUMNS: Record<ImportType, ImportColumns> = {
  persons: {
    columns: ['user_name', ...PROFILE_COLUMNS.filter((c) => c !== 'extern_person_id'), 'extern_person_id', ...ORGANISATION_REF, 'role_ids'],
    needs: [PERSON_KEYS],
    sample: {
      user_name: 'kari.nordmann',
      firstname: 'Kari',
      lastname: 'Nordmann',
      email: 'kari.nordmann@example.com',
      mobile: '+4790000012',
      extern_person_id: 'HR-1001',
      organisation_id: '1',
      role_ids: '2;3',
    },
    about:
      'persons: matched by user_name, else extern_person_id; a new person needs user_name, organisation_id (or extern_organisation_id) and role_ids ' +
      '(ids separated by ; , or spaces); an existing one gets the columns that differ (an empty cell clears a field, as in PUT /api/persons), is moved ' +
      'to another organisation, and with a non-empty role_ids gets exactly those roles. Passwords are never imported (send a login or a reset).',
  },
  organisations: {
    columns: ['organisation_id', 'extern_organisation_id', 'name', 'parent_id', 'parent_extern_organisation_id', 'email', 'address', 'phone'],
    needs: [ORGANISATION_REF],
    sample: { extern_organisation_id: 'ORG-10', name: 'Sales', parent_extern_organisation_id: 'ORG-1', email: 'sales@example.com', phone: '+4722000000' },
    about:
      'organisations: matched by organisation_id, else extern_organisation_id (a new one needs extern_organisation_id and name); the parent is parent_id ' +
      '(0 or empty: a root) or parent_extern_organisation_id, which may name an organisation of an earlier row; a move below itself is a 420.',
  },
  managers: {
    columns: [...PERSON_KEYS, ...ORGANISATION_REF],
    needs: [PERSON_KEYS, ORGANISATION_REF],
    sample: { user_name: 'kari.nordmann', extern_organisation_id: 'ORG-10' },
    about:
      'managers: makes the person (user_name or extern_person_id) a manager of the organisation (organisation_id or extern_organisation_id); one already is: unchanged.',
  },
  role_assignments: {
    columns: [...PERSON_KEYS, 'role_id'],
    needs: [PERSON_KEYS, ['role_id']],
    sample: { user_name: 'kari.nordmann', role_id: '2' },
    about: 'role_assignments: gives the person (user_name or extern_person_id) the role role_id; one held already: unchanged.',
  },
  registrations: {
    columns: [...PERSON_KEYS, 'competence_id', 'date', 'passed', 'valid_until', 'comments', 'grade'],
    needs: [PERSON_KEYS, ['competence_id'], ['date']],
    sample: { user_name: 'kari.nordmann', competence_id: '12', date: '2026-03-01', passed: '100', valid_until: '', comments: 'Imported from the old system' },
    about:
      'registrations: a registration as PUT /api/personcompetences/[competence_id] makes it (the same rules per competence type), matched by ' +
      '(person, competence, date): one with the same values is unchanged, other values make a new registration (updated).',
  },
};

/** The file's header as column names: trimmed, lower case; checked against the type's columns. */
export function readHeader(type: ImportType, values: readonly string[]): string[] {
  const spec = IMPORT_COLUMNS[type];
  const header = values.map((v) => v.trim().toLowerCase());
  const seen = new Set<string>();
  header.forEach((name, i) => {
    if (name === '') {
      if (i < header.length - 1 || header.length === 1) throw ApiError.malformed('file', `column ${i + 1} of the header has no name`);
      return;
    }
    if (!spec.columns.includes(name)) throw ApiError.malformed('file', `unknown column "${name}" for type ${type}; its columns are ${spec.columns.join(', ')}`);
    if (seen.has(name)) throw ApiError.malformed('file', `column "${name}" is named twice`);
    seen.add(name);
  });
  for (const group of spec.needs) {
    if (!group.some((c) => seen.has(c))) throw new ApiError(419, `missing column: a ${type} file needs ${group.join(' or ')}`, { parameter: 'file' });
  }
  return header;
}

/** The cells of a line by column name (cells beyond the header's columns are ignored, missing ones are empty). */
export function cellsOf(header: readonly string[], values: readonly string[]): Map<string, string> {
  const cells = new Map<string, string>();
  header.forEach((name, i) => {
    if (name !== '') cells.set(name, values[i] ?? '');
  });
  return cells;
}

/** GET /api/imports/templates/[type]: the header and one sample row, safe to open in a spreadsheet. */
export function templateCsv(type: ImportType): string {
  const { columns, sample } = IMPORT_COLUMNS[type];
  return `${columns.map(csvCell).join(',')}\r\n${columns.map((c) => csvCell(sample[c] ?? '')).join(',')}\r\n`;
}
