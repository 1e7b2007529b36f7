import { z } from 'zod';
import { defineRoute } from '../platform/http/define-route';
import { p, paging, pagingShape, fieldsShape, periodEnd } from '../platform/http/param-types';
import { AccessPolicy } from '../platform/auth/access-policy';
import { TENANT_DB } from '../platform/tokens';
import { ApiError } from '../platform/errors/api-error';
import { AuditLogEntry, listAuditLog } from './audit-log.repository';

export const auditLogRoutes = [
  defineRoute({
    method: 'get',
    path: '/auditlog',
    access: 'user',
    resource: 'auditlog',
    summary: "The tenant's security event log, newest first. Security: superusers",
    description:
      'Append-only record of password changes and resets, e-mail/mobile changes, role changes, config item changes (never a secret value), ' +
      'logins and operator actions. Filters: type (one or more exact types, comma-separated or repeated), user_name (the actor or the subject), ' +
      'startdate (inclusive) and enddate (exclusive; a date without time includes that whole day). Paging: limit 1-100 (default 20), offset. ' +
      'details never holds a password, token or secret.',
    input: z.object({
      type: p.stringList().optional(),
      user_name: p.string(200).min(1).optional(),
      startdate: p.date().optional(),
      enddate: periodEnd().optional(),
      ...pagingShape,
      ...fieldsShape,
    }),
    output: AuditLogEntry,
    async handler(ctx, input) {
      ctx.resolve(AccessPolicy).assertSuperuser(ctx.user, 'read the security event log');
      const end = input.enddate;
      if (input.startdate && end && end <= input.startdate) throw ApiError.malformed('enddate', 'must be after startdate');
      const items = await listAuditLog(ctx.resolve(TENANT_DB), { types: input.type, userName: input.user_name, start: input.startdate, end }, paging(input));
      return { items };
    },
  }),
];
