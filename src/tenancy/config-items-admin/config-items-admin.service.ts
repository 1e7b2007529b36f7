import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';
import { platformAndTenant } from '../../platform/clusters/cluster-transaction';
import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { AuditTrail } from '../../platform/audit/audit-trail';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../platform/tenant-scope/tenant-resolver';
import { checkInputValues } from '../../platform/http/input-guard';
import { ApiError } from '../../platform/errors/api-error';
import type { Principal } from '../../platform/auth/principal';
import {
  CONFIG_SECTIONS,
  ConfigValueError,
  allConfigItemDefinitions,
  configItemDefinition,
  type ConfigItemDefinition,
  type ConfigItemId,
} from '../../platform/config-items/config-item-registry';
import { z } from 'zod';
import { ConfigItemView, presentConfigItem } from './config-items.presenter';

const SECRET_CHANGED = '[secret changed]';

const adminExtras = {
  section: z.enum(CONFIG_SECTIONS).describe('the admin page section that shows the item'),
  last_changed_by: z.string().nullable().optional().describe('who changed it last (user_name or "import"); null when never changed'),
  last_changed_at: z.string().nullable().optional().describe('when it was changed last, ISO 8601'),
  recommended: z.unknown().optional().describe('the value the admin page recommends (only on items that have one, e.g. api.oauth.require_expires_on: true)'),
};

/** An item as an admin sees it: readable items in full, secrets without their value. */
export const AdminConfigItemView = z
  .union([
    ConfigItemView.extend({ secret: z.literal(false), ...adminExtras }),
    z.object({
      config_item_id: z.string(),
      description: z.string(),
      type: z.string(),
      secret: z.literal(true),
      is_set: z.boolean().describe('whether the tenant has set a value; the value itself is never shown'),
      ...adminExtras,
    }),
  ])
  .describe('A config item for tenant superusers: as GET /api/configitems?view=full plus secret=false, or for a secret only whether it is set.')
  .meta({ id: 'ConfigItemAdmin' });

/** One audit entry of a config item. */
export const ConfigItemChangeView = z
  .object({
    config_item_id: z.string(),
    changed_by: z.string().describe('user_name of the superuser, or "import"'),
    changed_at: z.string().describe('ISO 8601 date-time'),
    secret: z.boolean(),
    old_value: z.unknown().describe('the value before; null for secrets'),
    new_value: z.unknown().describe('the value after; "[secret changed]" for secrets'),
  })
  .describe('Audit entry of a config item change, newest first. Secret values are never shown.')
  .meta({ id: 'ConfigItemChange' });

/** Secrets show only whether they are set; everything else as GET /api/configitems?view=full. */
export function presentForAdmin(tenant: Tenant, def: ConfigItemDefinition, last?: { changedBy: string; changedAt: Date }) {
  const extras = {
    section: def.section,
    last_changed_by: last?.changedBy ?? null,
    last_changed_at: last ? new Date(last.changedAt).toISOString() : null,
    ...(def.recommended !== undefined ? { recommended: def.recommended } : {}),
  };
  if (!def.secret) return { ...presentConfigItem(tenant, def.id, 'full'), secret: false, ...extras };
  return {
    config_item_id: def.id,
    description: def.description,
    type: def.type,
    secret: true,
    is_set: tenant.config.isSet(def.id as ConfigItemId),
    ...extras,
  };
}

/**
 * Form fields arrive as text: for every type but plain strings and enums the text is read
 * as JSON (5, true, ["https://a.example"]); an empty text clears a nullable item.
 */
function fromForm(def: ConfigItemDefinition, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (value.trim() === '' && def.schema.safeParse(null).success) return null;
  if (def.type === 'string' || def.type === 'enum') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ApiError(420, `malformed parameter value: config item ${def.id}: not valid JSON for a ${def.type} item`, {
      parameter: 'value',
      config_item_id: def.id,
    });
  }
  // The text had no NUL, but a \u0000 escape in it decodes to one, which jsonb refuses.
  checkInputValues(parsed, ['value']);
  return parsed;
}

/** Tenant superusers tune their tenant's config items; every change is audited and pushed to all processes. */
@injectable()
export class ConfigItemsAdminService {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantStore) private readonly store: TenantStore,
    @inject(TenantResolver) private readonly resolver: TenantResolver,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  /** The routes let superusers in; the operator acts from outside any tenant. */
  definition(id: string): ConfigItemDefinition {
    const def = configItemDefinition(id);
    if (!def) throw new ApiError(404, `config item ${id} not found`);
    return def;
  }

  /** Every item with its last change; callers have checked who asks (a superuser, or the operator). */
  async list() {
    const last = await this.store.lastConfigChanges(this.tenant.id);
    return allConfigItemDefinitions().map((def) => presentForAdmin(this.tenant, def, last.get(def.id)));
  }

  set(user: Principal, id: string, raw: unknown) {
    return this.setAs(user.userName, this.definition(id), raw);
  }

  /** The one write path of config items: the tenant admin's PUT and the operator's. */
  async setAs(actor: string, def: ConfigItemDefinition, raw: unknown) {
    const id = def.id;
    if (raw === undefined) throw ApiError.missing('value');
    try {
      const value = fromForm(def, raw);
      // the platform's history and the tenant's security log commit together (on main: one transaction)
      await platformAndTenant(this.clusters, this.tenant.cluster, async (trx, tenantTrx) => {
        const change = await this.store.setConfigItem(this.tenant.id, id, value, actor, trx);
        const details = change.secret ? { value_hidden: true } : { old_value: change.oldValue, new_value: change.newValue };
        await this.audit.record({ type: 'config.changed', actor, subject: id, details }, new TenantDb(tenantTrx, this.tenant.schema));
      });
    } catch (err) {
      if (err instanceof ConfigValueError) {
        throw new ApiError(420, `malformed parameter value: ${err.message}`, { parameter: 'value', config_item_id: id });
      }
      throw err;
    }
    await this.resolver.publishChange(this.tenant.id);
    const fresh = await this.resolver.byTenantId(this.tenant.id);
    const last = await this.store.lastConfigChanges(this.tenant.id);
    return presentForAdmin(fresh ?? this.tenant, def, last.get(def.id));
  }

  async history(id: string, limit: number) {
    const def = this.definition(id);
    const changes = await this.store.configHistory(this.tenant.id, def.id, limit);
    return changes.map((c) => ({
      config_item_id: c.itemId,
      changed_by: c.changedBy,
      changed_at: c.changedAt,
      secret: c.secret,
      old_value: c.secret ? null : c.oldValue,
      new_value: c.secret ? SECRET_CHANGED : c.newValue,
    }));
  }
}
