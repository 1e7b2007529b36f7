import { ApiError } from '../../platform/errors/api-error';

const PG_FOREIGN_KEY_VIOLATION = '23503';

/**
 * Runs a write that references other catalogue rows (a parent, a group, categories, a role, a
 * competence). Those are checked first, but one may be deleted by another request between the
 * check and the write; the foreign key then refuses the write, and the caller gets a 409 saying so
 * instead of a 500.
 */
export async function referencesStillThere<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if ((err as { code?: unknown })?.code === PG_FOREIGN_KEY_VIOLATION) {
      throw new ApiError(409, 'an object this change refers to was deleted while it ran; read it again and retry');
    }
    throw err;
  }
}
