import { ScimError } from './scim-error';
import { parsePath, type ScimPath } from './scim-filter';
import { ENTERPRISE_USER_SCHEMA } from './scim-attribute-path';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  /** None: `value` is an object of attributes (expanded by normalizePatch into one operation each). */
  path?: ScimPath;
  value?: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A PATCH body (RFC 7644 §3.5.2) as identity providers really send it: `op` in any case (Entra ID's
 * "Replace", "Add"), an add or replace without `path` whose `value` is an object of attributes
 * (Okta's `{"active": false}`, Entra ID's `{"name.givenName": ...}` or the enterprise extension's URN
 * as a key) is split into one operation per attribute, each with its path.
 */
export function normalizePatch(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw ScimError.invalidSyntax('a PATCH body is a JSON object');
  const ops = body.Operations ?? body.operations;
  if (!Array.isArray(ops) || ops.length === 0) throw ScimError.invalidSyntax('Operations must be a non-empty array');
  if (ops.length > 1000) throw new ScimError(413, 'at most 1000 operations in one PATCH', 'tooMany');
  const out: PatchOperation[] = [];
  for (const raw of ops) {
    if (!isObject(raw)) throw ScimError.invalidSyntax('each operation is an object');
    const name = typeof raw.op === 'string' ? raw.op.toLowerCase() : '';
    if (name !== 'add' && name !== 'replace' && name !== 'remove')
      throw ScimError.invalidSyntax(`op must be add, replace or remove, not ${JSON.stringify(raw.op)}`);
    const path = typeof raw.path === 'string' && raw.path.trim() !== '' ? parsePath(raw.path) : undefined;
    if (path) {
      out.push({ op: name, path, value: raw.value });
      continue;
    }
    if (name === 'remove') throw new ScimError(400, 'remove needs a path', 'noTarget');
    if (!isObject(raw.value)) throw ScimError.invalidSyntax(`${name} without a path needs an object value`);
    for (const [key, value] of Object.entries(raw.value)) {
      const p = parsePath(key);
      if (p.attr === 'enterprise' && isObject(value)) {
        for (const [sub, v] of Object.entries(value)) out.push({ op: name, path: parsePath(`${ENTERPRISE_USER_SCHEMA}:${sub}`), value: v });
      } else if (p.attr === '' || p.attr === 'schemas') {
        continue;
      } else {
        out.push({ op: name, path: p, value });
      }
    }
  }
  return out;
}

/** A boolean as identity providers send it: true/false, or Entra ID's "True"/"False" strings. */
export function scimBoolean(v: unknown, attr: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
  throw ScimError.invalidValue(`${attr} must be true or false`);
}
