import { z } from 'zod';
import type { TenantDb } from '../tenant-scope/tenant-db';
import type { Paging } from '../http/param-types';

export const AuditLogEntry = z
  .object({
    audit_id: z.number().int(),
    at: z.string(),
    type: z.string(),
    actor: z.string(),
    subject: z.string().nullable(),
    ip: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditLogEntry' });
export type AuditLogEntry = z.infer<typeof AuditLogEntry>;

export interface AuditLogFilter {
  types?: string[];
  /** Matches the actor or the subject. */
  userName?: string;
  start?: Date;
  /** Exclusive. */
  end?: Date;
}

export async function listAuditLog(db: TenantDb, filter: AuditLogFilter, page: Paging): Promise<AuditLogEntry[]> {
  const q = db.table('audit_log').select('audit_id', 'at', 'type', 'actor', 'subject', 'ip', 'details');
  if (filter.types?.length) q.whereIn('type', filter.types);
  if (filter.userName) {
    const name = filter.userName;
    q.where((w) => void w.where('actor', name).orWhere('subject', name));
  }
  if (filter.start) q.where('at', '>=', filter.start);
  if (filter.end) q.where('at', '<', filter.end);
  const rows = await q
    .orderBy([
      { column: 'at', order: 'desc' },
      { column: 'audit_id', order: 'desc' },
    ])
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((r: any) => ({ ...r, audit_id: Number(r.audit_id), at: new Date(r.at).toISOString() }));
}

/**
 * Every entry where the person is actor or subject, oldest first (the GDPR export): by person id,
 * so entries under a former user name are in and a former holder of the person's user name's are not.
 */
export async function auditEntriesOf(db: TenantDb, personId: number, page?: { limit: number; offset: number }): Promise<Record<string, unknown>[]> {
  const query = db
    .table('audit_log')
    .where((w) => void w.where('actor_id', personId).orWhere('subject_id', personId))
    .select('audit_id', 'at', 'type', 'actor', 'subject', 'ip', 'details')
    .orderBy('audit_id');
  const rows = await (page ? query.limit(page.limit).offset(page.offset) : query);
  return rows.map((e: { audit_id: string }) => ({ ...e, audit_id: Number(e.audit_id) }));
}

/**
 * The log is append-only (trigger of migration 080); erasing a person is its one sanctioned rewrite:
 * earlier entries naming the person name the placeholder. `set local` scopes the escape to the
 * erasure's transaction, so no other statement can use it.
 */
export async function renameInAuditLog(trx: TenantDb, personId: number, placeholder: string): Promise<string[]> {
  await trx.raw("set local app.audit_erasure = 'on'");
  // every name the person was logged under (a former user name too), found by id
  const names = (
    await trx.raw('select actor as name from ?? where actor_id = ? union select subject from ?? where subject_id = ? and subject is not null', [
      trx.ref('audit_log'),
      personId,
      trx.ref('audit_log'),
      personId,
    ])
  ).rows
    .map((r: { name: string }) => r.name)
    .filter((n: string) => n !== placeholder);
  await trx.table('audit_log').where('actor_id', personId).update({ actor: placeholder });
  await trx.table('audit_log').where('subject_id', personId).update({ subject: placeholder });
  await trx.raw("set local app.audit_erasure = 'off'");
  return names;
}
