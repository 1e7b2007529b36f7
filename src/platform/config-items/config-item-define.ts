import type { ConfigItemDefinition } from './config-item-registry';

/** Keeps each item's id a literal type, so TenantConfig.get('...') knows the value type of the item it names. */
export const define = <T, const I extends string>(d: ConfigItemDefinition<T> & { id: I }) => d;
