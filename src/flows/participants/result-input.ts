import { z } from 'zod';
import { p } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';

/** An empty value (or JSON null) clears the field. */
const clearable = <T extends z.ZodType>(s: T) => z.preprocess((v) => (v === '' || v === null ? null : v), s.nullable());

/** The most rows one PUT /api/participants/[event_id] records. */
export const RESULTS_MAX = 500;

/** The fields of a result; each optional: what is not given keeps its recorded value. */
export const resultFields = {
  met: p.bool().optional().describe('1: attended, 0: did not'),
  passed: p
    .int()
    .pipe(z.number().min(0, 'must be 0..100').max(100, 'must be 0..100'))
    .optional()
    .describe("the result 0..100; at or above the pass mark of the event's competence (its pass_mark, else 100) the person gets a registration"),
  grade: clearable(
    z
      .union([
        z.number(),
        z
          .string()
          .trim()
          .regex(/^[-+]?\d+(\.\d+)?$/, 'must be a number'),
      ])
      .transform(Number)
      .pipe(z.number().finite('must be a number').min(-1e9, 'is out of range').max(1e9, 'is out of range')),
  )
    .optional()
    .describe('a number; empty clears it'),
  comments: clearable(p.string(5000)).optional().describe('text up to 5000 characters; empty clears it'),
};

export interface ResultInput {
  user_name: string;
  met?: boolean;
  passed?: number;
  grade?: number | null;
  comments?: string | null;
}

const row = z.object({ user_name: p.text().pipe(z.string().max(200, 'must be at most 200 characters')), ...resultFields }).strict();

/** JSON text (form or query clients) or the array itself. */
export const jsonArray = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

/**
 * `results`: each row checked in order; the first bad row is the answer, named
 * `results[2].passed` (419 when a field it needs is missing, 420 for a wrong one), as is a user
 * name given twice. All or nothing: nothing is recorded unless every row is right.
 */
export function parseResults(value: unknown): ResultInput[] {
  if (!Array.isArray(value)) throw ApiError.malformed('results', 'must be a JSON array of {user_name, met, passed, grade, comments}');
  if (value.length === 0) throw ApiError.malformed('results', 'must hold at least one result');
  if (value.length > RESULTS_MAX) throw ApiError.malformed('results', `must hold at most ${RESULTS_MAX} results`);
  const seen = new Map<string, number>();
  return value.map((v, i) => {
    const name = (path: readonly PropertyKey[]) => `results[${i}]${path.map((k) => `.${String(k)}`).join('')}`;
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      throw ApiError.malformed(name([]), 'must be an object {user_name, met, passed, grade, comments}');
    const r = row.safeParse(v);
    if (!r.success) {
      const issue = r.error.issues[0];
      if (issue.code === 'unrecognized_keys')
        throw ApiError.malformed(name([issue.keys[0]]), 'is not a field of a result (user_name, met, passed, grade, comments)');
      const given = (v as Record<string, unknown>)[String(issue.path[0])];
      if (issue.path[0] === 'user_name' && (given === undefined || given === '')) throw ApiError.missing(name(issue.path));
      throw ApiError.malformed(name(issue.path), issue.message);
    }
    const earlier = seen.get(r.data.user_name);
    if (earlier !== undefined) throw ApiError.malformed(name(['user_name']), `"${r.data.user_name}" is in results[${earlier}] already`);
    seen.set(r.data.user_name, i);
    if (r.data.met === undefined && r.data.passed === undefined && r.data.grade === undefined && r.data.comments === undefined) {
      throw ApiError.missing(name(['passed']));
    }
    return r.data;
  });
}
