import { CONFIG_ITEMS, type ConfigItemId, type ConfigValue, configItemDefinition } from './config-item-registry';

/** A tenant's config items with defaults filled in; immutable snapshot. */
export class TenantConfig {
  constructor(private readonly values: ReadonlyMap<string, unknown>) {}

  get<I extends ConfigItemId>(id: I): ConfigValue<I> {
    if (this.values.has(id)) return this.values.get(id) as ConfigValue<I>;
    return configItemDefinition(id)!.default as ConfigValue<I>;
  }

  /** Whether the tenant stored its own value (as opposed to the default). */
  isSet(id: ConfigItemId): boolean {
    return this.values.has(id) && this.values.get(id) !== null;
  }

  static empty(): TenantConfig {
    return new TenantConfig(new Map());
  }

  static ids(): ConfigItemId[] {
    return CONFIG_ITEMS.map((d) => d.id);
  }
}
