import { ScimError } from './scim-error';

export const CORE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const CORE_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * An attribute name as this server compares it: lower case, without the core schema's URN, the
 * enterprise extension's URN as the prefix `enterprise:` (`enterprise:department`), a sub-attribute
 * after a dot (`name.givenname`). SCIM attribute names are case-insensitive (RFC 7643 §2.1).
 */
export function canonicalAttribute(raw: string): string {
  const lower = raw.trim().toLowerCase();
  for (const [urn, prefix] of [
    [ENTERPRISE_USER_SCHEMA.toLowerCase(), 'enterprise:'],
    [CORE_USER_SCHEMA.toLowerCase(), ''],
    [CORE_GROUP_SCHEMA.toLowerCase(), ''],
  ] as const) {
    if (lower === urn) return prefix ? 'enterprise' : '';
    if (lower.startsWith(`${urn}:`)) return `${prefix}${lower.slice(urn.length + 1)}`;
  }
  if (lower.startsWith('urn:')) throw ScimError.invalidPath(`unknown schema in attribute "${raw}"`);
  if (!/^[a-z$][a-z0-9_$-]*(\.[a-z$][a-z0-9_$-]*)?$/.test(lower)) throw ScimError.invalidPath(`"${raw}" is no attribute path`);
  return lower;
}
