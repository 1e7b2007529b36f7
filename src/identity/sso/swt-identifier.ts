import type { Tenant } from '../../platform/tenant-scope/tenant';
import { SwtRejected } from './swt-token';

/** The parameter of a trusted token that names its user, and how (the person is looked up by a flow). */
export type SwtIdentifier = { kind: 'user_name' | 'person_id' | 'extern_person_id'; param: string; value: string };

const unique = (names: string[]) => [...new Set(names)];

/**
 * Picks the parameter that names the user: first a user name (configured key, username,
 * user_name), then a person id, then an external person id. A signed token is trusted, so
 * the first one present decides; the others are not cross-checked.
 */
export function identifierOf(params: Map<string, string>, tenant: Tenant): SwtIdentifier {
  const cfg = tenant.config;
  const groups: [SwtIdentifier['kind'], string[]][] = [
    ['user_name', unique([cfg.get('api.oauth.user_name_key'), 'username', 'user_name'])],
    ['person_id', unique([cfg.get('api.oauth.person_id_key'), 'person_id'])],
    ['extern_person_id', unique([cfg.get('api.oauth.extern_person_id_key'), 'external_person_id'])],
  ];
  for (const [kind, names] of groups) {
    for (const param of names) {
      const value = params.get(param);
      if (value !== undefined && value !== '') return { kind, param, value };
    }
  }
  const all = groups.flatMap(([, names]) => names).join(', ');
  throw new SwtRejected('user', `the token names no user (expected one of: ${all})`);
}
