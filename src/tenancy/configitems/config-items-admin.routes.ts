import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { AdminConfigItemView, ConfigItemChangeView, ConfigItemsAdminService } from './config-items-admin.service';
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
    description: 'value as JSON ({"value": ...}) or form text (read as JSON unless the item is a string or enum). Secrets are never echoed: the answer says is_set.',
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
