import { ApiError } from '../errors/api-error';

export interface Envelope {
  valid: boolean;
  message: string;
  errorcode?: number;
  [resource: string]: unknown;
}

export function okEnvelope(resource: string, items: readonly object[], message = 'OK'): Envelope {
  return { valid: true, message, [resource]: items };
}

export function errorEnvelope(err: ApiError): Envelope {
  return { valid: false, message: err.message, errorcode: err.errorcode, ...err.extra };
}

/**
 * Field customisation: `fields=a,b,c` keeps only those top-level attributes of each
 * returned object. A name that no returned object has is a 420, so typos do not pass
 * silently.
 */
export function selectFields(items: readonly object[], fields: readonly string[] | undefined): object[] {
  if (!fields || fields.length === 0) return items as object[];
  if (items.length > 0) {
    const known = new Set(items.flatMap((i) => Object.keys(i)));
    const unknown = fields.filter((f) => !known.has(f));
    if (unknown.length) {
      throw ApiError.malformed('fields', `unknown field(s) ${unknown.join(', ')}; available: ${[...known].join(', ')}`);
    }
  }
  return items.map((item) => Object.fromEntries(fields.filter((f) => f in item).map((f) => [f, (item as any)[f]])));
}
