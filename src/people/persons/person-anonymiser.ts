import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** Everything on the person row that identifies or describes them; id, organisation and flags stay. */
const PERSONAL_COLUMNS = [
  'firstname',
  'lastname',
  'jobtitle',
  'mobile',
  'email',
  'birthdate',
  'extern_person_id',
  'address',
  'postcode',
  'city',
  'phone',
  'sex',
  'notice',
  'employee_code',
  'profile_image',
  'source',
  'code',
  'language',
  'password_hash',
  'password_changed_at',
  'must_change_password',
  // every column of a mailed password not used yet (migrations 020 and 090)
  'pending_password_hash',
  'pending_password_expires_at',
  'pending_password_delivery_id',
  'pending_password_earlier',
] as const;

/** Values that name the person where they are copied as text (user name, contact details, names, codes). */
const IDENTIFYING_COLUMNS = ['user_name', 'email', 'mobile', 'phone', 'extern_person_id', 'employee_code', 'firstname', 'lastname'] as const;

export const erasedUserName = (personId: number) => `erased-${personId}`;

/**
 * The people module's part of an erasure (the right to erasure, GDPR article 17): the person row
 * is anonymised in place, so registrations, sign-ons and survey answers keep counting in
 * statistics without naming anyone. Got by `tx.get(PersonAnonymiser)` in the erasure's transaction.
 */
@injectable()
export class PersonAnonymiser {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The person, locked until the erasure commits (two erasures of one person run one after the other). */
  lock(userName: string): Promise<{ id: number } | undefined> {
    return this.db.table('persons').where('user_name', userName).forUpdate().first('id');
  }

  /** Someone other than the person already holds the name. */
  async nameTaken(userName: string, personId: number): Promise<boolean> {
    return Boolean(await this.db.table('persons').where('user_name', userName).whereNot('id', personId).first('id'));
  }

  /** The person's identifying values as they are now (before anonymise), at least 3 characters long each. */
  async identifiers(personId: number): Promise<string[]> {
    const row = await this.db
      .table('persons')
      .where('id', personId)
      .first(...IDENTIFYING_COLUMNS);
    const values = IDENTIFYING_COLUMNS.map((c) => row?.[c]).filter((v): v is string => typeof v === 'string' && v.trim().length >= 3);
    const full = row?.firstname && row?.lastname ? [`${row.firstname} ${row.lastname}`] : [];
    return [...new Set([...values, ...full])];
  }

  /** Blanks the personal columns, renames the person `placeholder` and ends what they managed (a placeholder manages nothing). */
  async anonymise(personId: number, placeholder: string): Promise<void> {
    await this.db
      .table('persons')
      .where('id', personId)
      .update({
        ...Object.fromEntries(PERSONAL_COLUMNS.map((c) => [c, null])),
        user_name: placeholder,
        superuser: false,
        superadmin: false,
        updated_at: this.db.fn.now(),
      });
    await this.db.table('organisation_managers').where('person_id', personId).delete();
  }
}
