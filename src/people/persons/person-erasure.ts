import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Tenant } from '../../platform/tenancy/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { SessionStore } from '../../identity/accounts/session-store';
import { FILE_STORE, type FileStore } from '../../courses/files/file-store';
import type { SurveyItem } from '../../courses/surveyanswers/survey-data';

/** Everything on the person row that identifies or describes them; id, organisation and flags stay. */
const PERSONAL_COLUMNS = [
  'firstname', 'lastname', 'jobtitle', 'mobile', 'email', 'birthdate', 'extern_person_id', 'address', 'postcode', 'city',
  'phone', 'sex', 'notice', 'employee_code', 'profile_image', 'source', 'code',
  'password_hash', 'password_changed_at', 'must_change_password', 'pending_password_hash', 'pending_password_expires_at',
] as const;

export const erasedUserName = (personId: number) => `erased-${personId}`;

/** Free text may name anyone; numbers and booleans are what survey statistics need. */
function blankFreeText(items: SurveyItem[]): SurveyItem[] {
  return items.map(({ file_data, file_name, file_title, file_id, ...item }) => ({
    ...item,
    ...(typeof item.value === 'string' ? { value: '' } : {}),
    ...(Array.isArray(item.value) ? { value: item.value.map((v) => (typeof v === 'string' ? '' : v)) } : {}),
    ...(item.children ? { children: blankFreeText(item.children) } : {}),
  }));
}

/**
 * The right to erasure: anonymises a person in place, irreversibly. The row stays (as
 * `erased-<id>`) so registrations, sign-ons and survey answers keep counting in statistics
 * without naming anyone. One transaction; sessions and file bytes go after the commit, since
 * neither can roll back with it.
 */
@injectable()
export class PersonEraser {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(AuditTrail) private readonly audit: AuditTrail,
    @inject(SessionStore) private readonly sessions: SessionStore,
    @inject(FILE_STORE) private readonly store: FileStore,
    @inject(LOGGER) private readonly log: Logger,
  ) {}

  async erase(user: Principal, userName: string, confirm: string): Promise<string> {
    if (!user.superuser) throw ApiError.forbidden('not authorised to erase a person: only superusers may');
    if (confirm !== userName) throw ApiError.malformed('confirm', 'must equal the user_name of the person to erase');
    const { placeholder, personId, storageKeys } = await this.db.transaction(async (trx) => {
      const person = await trx.table('persons').where('user_name', userName).forUpdate().first('id');
      if (!person) throw ApiError.notFound(`person "${userName}"`);
      // the last superuser erasing themself would lock the tenant out; another superuser can do it
      if (person.id === user.personId) throw ApiError.forbidden('a superuser cannot erase themself: ask another superuser');
      const name = erasedUserName(person.id);
      if (await trx.table('persons').where('user_name', name).whereNot('id', person.id).first('id')) {
        throw new ApiError(409, `user name "${name}" is taken by another person; rename that person first`);
      }
      await trx.table('persons').where('id', person.id).update({
        ...Object.fromEntries(PERSONAL_COLUMNS.map((c) => [c, null])),
        user_name: name, superuser: false, superadmin: false, updated_at: trx.fn.now(),
      });
      // a placeholder manages nothing and answers no role-admin question
      await trx.table('organisation_managers').where('person_id', person.id).delete();
      await trx.table('role_admins').where('person_id', person.id).delete();
      await trx.table('person_competences').where('person_id', person.id).whereNotNull('comments').update({ comments: null });
      await this.blankMessages(trx, person.id);
      await this.blankSurveyAnswers(trx, person.id);
      const keys = await trx.table('files').where('person_id', person.id).delete().returning('storage_key');
      await this.rewriteAuditLog(trx, userName, name);
      await this.audit.record({ type: 'person.erased', actor: user.userName, subject: name, details: { person_id: person.id, files_deleted: keys.length } }, trx);
      return { placeholder: name, personId: person.id as number, storageKeys: keys.map((k: { storage_key: string }) => k.storage_key) };
    });
    await this.afterCommit(personId, storageKeys);
    return placeholder;
  }

  private async blankMessages(trx: TenantDb, personId: number): Promise<void> {
    const received = trx.table('messages').where('recipient_id', personId).select('id');
    await trx.table('message_deliveries').whereIn('message_id', received).update({ address: '', last_error: null });
    await trx.table('messages').where('recipient_id', personId).update({ title: '', text: '', cc: '{}', reply_to: null });
  }

  private async blankSurveyAnswers(trx: TenantDb, personId: number): Promise<void> {
    const answers: { id: number; data: { items: SurveyItem[] } }[] = await trx.table('survey_answers').where('person_id', personId).select('id', 'data');
    for (const a of answers) {
      await trx.table('survey_answers').where('id', a.id).update({ data: JSON.stringify({ items: blankFreeText(a.data.items ?? []) }) });
    }
  }

  /**
   * The log is append-only (trigger of migration 080); erasure is its one sanctioned rewrite.
   * `set local` scopes the escape to this transaction, so no other statement can use it.
   */
  private async rewriteAuditLog(trx: TenantDb, oldName: string, placeholder: string): Promise<void> {
    await trx.raw("set local app.audit_erasure = 'on'");
    await trx.table('audit_log').where('actor', oldName).update({ actor: placeholder });
    await trx.table('audit_log').where('subject', oldName).update({ subject: placeholder });
    await trx.raw("set local app.audit_erasure = 'off'");
  }

  // Failures here leave no personal data readable through the API (the rows are gone); they are logged for a retry by hand.
  private async afterCommit(personId: number, storageKeys: string[]): Promise<void> {
    await this.sessions.destroyAllFor(this.tenant, personId).catch((err) => this.log.error({ err, personId }, 'erasure: ending sessions failed'));
    for (const key of storageKeys) {
      await this.store.remove(this.tenant.schema, key).catch((err) => this.log.error({ err, personId }, 'erasure: removing a file failed'));
    }
  }
}
