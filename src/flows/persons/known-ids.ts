import { ApiError } from '../../platform/errors/api-error';

/** 404 naming the ids among `ids` that `missing` does not know ("role 7, 9"); each id is asked about once. */
export async function requireKnown(what: string, ids: readonly number[], missing: (ids: number[]) => Promise<number[]>): Promise<void> {
  const unique = [...new Set(ids)];
  const unknown = unique.length === 0 ? [] : await missing(unique);
  if (unknown.length) throw ApiError.notFound(`${what} ${unknown.join(', ')}`);
}
