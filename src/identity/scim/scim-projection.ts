import { canonicalAttribute } from './scim-attribute-path';
import { ScimError } from './scim-error';

/** Always answered, whatever `attributes` or `excludedAttributes` say (RFC 7643 §7 "returned: always"). */
const ALWAYS = new Set(['id', 'schemas', 'meta']);
const ENTERPRISE_KEY = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

function names(list: string | undefined): string[] | undefined {
  if (list === undefined || list.trim() === '') return undefined;
  try {
    return list.split(',').map((a) => canonicalAttribute(a));
  } catch (err) {
    throw err instanceof ScimError ? ScimError.invalidValue(`attributes: ${err.detail}`) : err;
  }
}

/** The resource's attribute `key` (top level or in the enterprise extension) as canonicalAttribute names it. */
function keyOf(top: string, sub?: string): string {
  if (top === ENTERPRISE_KEY) return `enterprise:${sub!.toLowerCase()}`;
  return sub === undefined ? top.toLowerCase() : `${top.toLowerCase()}.${sub.toLowerCase()}`;
}

/**
 * `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5) applied to one resource: top-level
 * attributes, one level of sub-attributes (`name.givenName`) and the enterprise extension's.
 */
export function project(resource: Record<string, unknown>, attributes?: string, excluded?: string): Record<string, unknown> {
  const only = names(attributes);
  const not = names(excluded);
  if (!only && !not) return resource;
  const keep = (key: string) => {
    if (only) return only.some((a) => a === key || a.startsWith(`${key}.`) || key.startsWith(`${a}.`) || (a === 'enterprise' && key.startsWith('enterprise:')));
    return !not!.some((a) => a === key || key.startsWith(`${a}.`) || (a === 'enterprise' && key.startsWith('enterprise:')));
  };
  const out: Record<string, unknown> = {};
  for (const [top, value] of Object.entries(resource)) {
    if (ALWAYS.has(top)) {
      out[top] = value;
      continue;
    }
    const complex = value !== null && typeof value === 'object' && !Array.isArray(value);
    if (complex && (top === ENTERPRISE_KEY || top === 'name')) {
      const subs = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([sub]) => keep(keyOf(top, sub))));
      if (Object.keys(subs).length) out[top] = subs;
    } else if (keep(keyOf(top))) {
      out[top] = value;
    }
  }
  return out;
}
