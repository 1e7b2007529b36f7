import { z } from 'zod';
import type { ViewName } from '../../platform/http/param-types';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { configItemDefinition, type ConfigItemId } from '../../platform/config-items/config-item-registry';

/** simple: id and value; full adds what an admin needs to edit it. */
export const ConfigItemView = z
  .object({
    config_item_id: z.string(),
    value: z.unknown(),
    description: z.string().optional(),
    type: z.string().optional(),
    default: z.unknown().optional(),
    is_default: z.boolean().optional(),
    options: z.array(z.string()).optional(),
  })
  .meta({ id: 'ConfigItem' });

/** Looks up a readable item or throws 404 (unknown) / 403 (refused through the API). */
export function readableItem(id: string) {
  const def = configItemDefinition(id);
  if (!def) throw new ApiError(404, `config item ${id} not found`);
  if (!def.readable) throw new ApiError(403, `config item ${id} is secret and cannot be read through the API`);
  return def;
}

export function presentConfigItem(tenant: Tenant, id: string, view: ViewName) {
  const def = readableItem(id);
  const value = tenant.config.get(id as ConfigItemId);
  const simple = { config_item_id: def.id, value };
  if (view === 'simple') return simple;
  return {
    ...simple,
    description: def.description,
    type: def.type,
    default: def.default,
    is_default: !tenant.config.isSet(id as ConfigItemId),
    ...(def.options ? { options: def.options } : {}),
  };
}
