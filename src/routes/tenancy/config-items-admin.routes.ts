import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { AdminConfigItemView, ConfigItemChangeView, ConfigItemsAdminService } from '../../tenancy';
import { policies } from '../../people';

const itemId = p.string(200).min(1);

/** Additions to the spec for tenant superusers (the admin page uses them); listed before GET /configitems/:id. */
export const configItemAdminRoutes = [
  defineRoute({
    method: 'get',
    path: '/configitems/definitions',
    access: policies.superuser('list every config item'),
    resource: 'configitems',
    summary: 'Every config item of the tenant with description, type and value (secrets: is_set only); superusers',
    description:
      'Each item with value, description, type, default, is_default, options, section and the newest change (last_changed_by, last_changed_at); ' +
      'secrets as is_set only, never the value. Others than superusers: 403. GET /api/configitems keeps requiring config_item_ids as the spec says.',
    input: z.object({}),
    output: AdminConfigItemView,
    async handler(ctx) {
      return { items: await ctx.resolve(ConfigItemsAdminService).list() };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/configitems/:config_item_id',
    access: policies.superuser('administer config items'),
    resource: 'configitems',
    summary: 'Change a config item (superusers); validated by the item, audited, effective everywhere within a second',
    description:
      'value as JSON ({"value": ...}, any JSON value) or form text: used as is for string and enum items, read as JSON for every other type ' +
      '(value=30, value=true, value=["https://a.example"]); an empty text sets a nullable item to null (back to its default). ' +
      "The item's own schema validates it: 420 naming config_item_id and what is wrong. Answers the item in the full view; secrets are never echoed, " +
      'the answer says is_set. The change and its security event log entry (config.changed) are written in one transaction and published, ' +
      'so every API and worker process uses the new value within a second.',
    input: z.object({ config_item_id: itemId, value: z.unknown() }),
    output: AdminConfigItemView,
    async handler(ctx, input) {
      const item = await ctx.resolve(ConfigItemsAdminService).set(ctx.user, input.config_item_id, input.value);
      return { items: [item], message: `config item ${input.config_item_id} changed` };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configitems/:config_item_id/history',
    access: policies.superuser('administer config items'),
    resource: 'changes',
    summary: 'Audit log of one config item, newest first (superusers); secrets show "[secret changed]"',
    description:
      'changes, newest first, each {config_item_id, changed_by (user_name, or "import"), changed_at, secret, old_value, new_value}; ' +
      'for secrets old_value is null and new_value is "[secret changed]". limit default 100, at most 100.',
    input: z.object({
      config_item_id: itemId,
      limit: p.limit().optional(),
    }),
    output: ConfigItemChangeView,
    async handler(ctx, input) {
      return { items: await ctx.resolve(ConfigItemsAdminService).history(input.config_item_id, input.limit ?? 100) };
    },
  }),
];
