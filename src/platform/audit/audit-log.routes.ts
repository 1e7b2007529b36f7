import { z } from 'zod';
import { defineRoute } from '../http/define-route';
import { p, paging, pagingShape, fieldsShape } from '../http/param-types';
import { TenantClock } from '../time/tenant-clock';
import { TENANT_DB } from '../tokens';
import { ApiError } from '../errors/api-error';
import { AuditLogEntry, listAuditLog } from './audit-log.repository';
import { access as policies } from '../http/access';

export const auditLogRoutes = [
  defineRoute({
    method: 'get',
    path: '/auditlog',
    access: policies.superuser('read the security event log'),
    resource: 'auditlog',
    summary: "The tenant's security event log, newest first. Security: superusers",
    description:
      'Append-only record of password changes and resets, e-mail/mobile changes, role changes, config item changes (never a secret value), ' +
      'logins and operator actions. Filters: type (one or more exact types, comma-separated or repeated), user_name (the actor or the subject), ' +
      "startdate (inclusive) and enddate (exclusive; a date without time includes that whole day; days are the tenant's, config item tenant.timezone). Paging: limit 1-100 (default 20), offset. " +
      'details never holds a password, token or secret.',
    input: z.object({
      type: p.stringList().optional(),
      user_name: p.string(200).min(1).optional(),
      startdate: p.when().optional(),
      enddate: p.when().optional(),
      ...pagingShape,
      ...fieldsShape,
    }),
    output: AuditLogEntry,
    async handler(ctx, input) {
      const clock = ctx.resolve(TenantClock);
      const start = input.startdate && clock.start(input.startdate);
      const end = input.enddate && clock.end(input.enddate);
      if (start && end && end <= start) throw ApiError.malformed('enddate', 'must be after startdate');
      const items = await listAuditLog(ctx.resolve(TENANT_DB), { types: input.type, userName: input.user_name, start, end }, paging(input));
      return { items };
    },
  }),
];
