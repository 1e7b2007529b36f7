import type { z } from 'zod';
import { ApiError } from '../errors/api-error';

/** A custom issue with params {[MISSING]: true} is a missing parameter too (p.text(): "" is not given). */
export const MISSING = 'missing';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: any = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[key as any];
  }
  return v;
}

/** Bracket form of a parameter path: person_data[email], ids[2]. */
export function parameterName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(request)';
  const [head, ...rest] = path.map(String);
  return head + rest.map((k) => `[${k}]`).join('');
}

/**
 * A missing required parameter is a 419, anything else wrong a 420; both name the
 * parameter. Only the first problem is reported as errorcode, all are listed.
 */
export function zodErrorToApiError(error: z.ZodError, input: unknown): ApiError {
  const issues = error.issues;
  // p.int()/p.id() are unions, so an absent one is reported as invalid_union, not invalid_type.
  const missing = issues.find(
    (i) =>
      ((i.code === 'invalid_type' || i.code === 'invalid_union') && valueAt(input, i.path) === undefined) ||
      (i.code === 'custom' && i.params?.[MISSING] === true),
  );
  if (missing) return ApiError.missing(parameterName(missing.path));
  const first = issues[0];
  const problems = issues.map((i) => `${parameterName(i.path)} ${i.message}`);
  const err = ApiError.malformed(parameterName(first.path), first.message);
  if (problems.length > 1) err.extra.problems = problems;
  return err;
}
