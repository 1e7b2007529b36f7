import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { access } from '../../platform/http/access';
import { ROOT_CONTAINER } from '../../platform/queue/job-definition';
import { AdminConfigItemView, TenantOperator } from '../../tenancy';
import { OperatorPasswordsFlow } from '../../flows/tenants/operator-passwords';
import { origin, slug } from './platform-views';

/** Operator calls inside one tenant: they run in the tenant's scope with the tenant admin's own code (TenantOperator; the password mail: OperatorPasswordsFlow). */
export const tenantInsideRoutes = [
  defineRoute({
    method: 'get',
    path: '/tenants/:slug/configitems',
    access: access.operator,
    resource: 'configitems',
    summary: 'Every config item of the tenant; secrets as is_set only',
    input: z.object({ slug }),
    output: AdminConfigItemView,
    async handler(ctx, input) {
      return { items: await new TenantOperator(ctx.resolve(ROOT_CONTAINER), origin(ctx)).configItems(input.slug) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/tenants/:slug/configitems/:config_item_id',
    access: access.operator,
    resource: 'configitems',
    summary: "Set a config item (validated like the tenant admin's PUT; audited as operator; applied at once)",
    description:
      'Write-only (secret) items too; the answer shows them as is_set only. A bad value is a 420 naming the item; recorded as config.changed with actor operator.',
    input: z.object({
      slug,
      config_item_id: z.string().describe('e.g. api.rate_limit.per_minute'),
      // `{"value": null}` clears an item: the service tells a JSON null from a missing value (419).
      value: z.unknown().optional().describe('the new value (required); null clears a nullable item'),
    }),
    output: AdminConfigItemView,
    async handler(ctx, input) {
      const item = await new TenantOperator(ctx.resolve(ROOT_CONTAINER), origin(ctx)).setConfigItem(input.slug, input.config_item_id, input.value);
      return { items: [item], message: 'config item saved' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/:slug/persons/:user_name/reset_password',
    access: access.operator,
    resource: 'persons',
    summary: 'Mail a person a new password (must be changed at login); audited',
    description: "Through the outbox, as send_login does; recorded in the tenant's security event log as password.reset with actor operator.",
    input: z.object({ slug, user_name: z.string().describe('the person') }),
    output: z.object({ user_name: z.string() }).meta({ id: 'PasswordReset' }),
    async handler(ctx, input) {
      const person = await ctx.resolve(OperatorPasswordsFlow).resetPassword(origin(ctx), input.slug, input.user_name);
      return { items: [person], message: `a new password was sent to ${person.user_name}` };
    },
  }),
];
