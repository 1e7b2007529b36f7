import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, viewShape } from '../../platform/http/param-types';
import { ConfigItemView, presentConfigItem } from '../../tenancy';
import { policies } from '../../people';

export const configItemRoutes = [
  defineRoute({
    method: 'get',
    path: '/configitems/:config_item_id',
    access: policies.userThen('secret items are refused (403)'),
    resource: 'configitems',
    summary: 'One config item of the tenant (secret items are refused with 403)',
    description: 'Any logged-in user; an unknown id is a 404, a secret item a 403. Full view by default.',
    input: z.object({ config_item_id: p.string(200).min(1), ...viewShape }),
    output: ConfigItemView,
    async handler(ctx, input) {
      return { items: [presentConfigItem(ctx.tenant, input.config_item_id, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configitems',
    access: policies.user,
    resource: 'configitems',
    summary: 'Several config items of the tenant by id',
    description:
      'config_item_ids is required (419), as the spec says; any unknown id is a 404, any secret item a 403. Simple view by default. ' +
      'Superusers get every item at once with GET /api/configitems/definitions.',
    input: z.object({ config_item_ids: p.stringList().pipe(z.array(z.string()).min(1, 'must name at least one item')), ...viewShape }),
    output: ConfigItemView,
    async handler(ctx, input) {
      const ids = [...new Set(input.config_item_ids)];
      return { items: ids.map((id) => presentConfigItem(ctx.tenant, id, input.view ?? 'simple')) };
    },
  }),
];
