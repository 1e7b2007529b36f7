import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';

/**
 * `custom_attributes.<name>=<value>` (or bracket form custom_attributes[name]=value):
 * names must be defined for competences in the tenant's custom_attributes config item.
 */
export function customAttributeFilter(tenant: Tenant, input: Record<string, unknown>, appliesTo: 'competence' | 'event'): Record<string, string> {
  const given: [string, string, unknown][] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key.startsWith('custom_attributes.')) given.push([key, key.slice('custom_attributes.'.length), value]);
  }
  const nested = input.custom_attributes;
  if (nested !== undefined) {
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) {
      throw ApiError.malformed('custom_attributes', 'use custom_attributes.<name>=<value>');
    }
    for (const [name, value] of Object.entries(nested)) given.push([`custom_attributes[${name}]`, name, value]);
  }
  const defs = tenant.config.get('custom_attributes').filter((d) => d.applies_to.includes(appliesTo));
  const out: Record<string, string> = {};
  for (const [param, name, value] of given) {
    if (!defs.some((d) => d.name === name)) {
      const known = defs.map((d) => d.name).join(', ') || 'none';
      throw ApiError.malformed(param, `unknown custom attribute "${name}" for ${appliesTo}s; defined: ${known}`);
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw ApiError.malformed(param, 'must be a single value');
    }
    out[name] = String(value);
  }
  return out;
}
