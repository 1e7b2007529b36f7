import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';

export interface RecipientRow {
  id: number;
  user_name: string;
  organisation_id: number | null;
  email: string | null;
  mobile: string | null;
}

/** The person facts messaging needs (kept here so messaging does not depend on the persons feature). */
@injectable()
export class Recipients {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private query() {
    return this.db.table<RecipientRow>('persons').select('id', 'user_name', 'organisation_id', 'email', 'mobile');
  }

  byUserName(userName: string): Promise<RecipientRow | undefined> {
    return this.query().where({ user_name: userName }).first();
  }

  byId(id: number): Promise<RecipientRow | undefined> {
    return this.query().where({ id }).first();
  }

  /** Accounts a forgot-password identification may mean: the user name, else e-mail or mobile. */
  async byIdentification(identification: string): Promise<RecipientRow[]> {
    const byName = await this.byUserName(identification);
    if (byName) return [byName];
    const mobile = compactMobile(identification);
    return this.query()
      .whereRaw('lower(email) = lower(?)', [identification])
      .orWhere('mobile', mobile)
      .orderBy('id')
      .limit(5);
  }

  /** E-mail of the nearest manager above the person: their organisation first, then its ancestors. */
  async managerEmail(person: RecipientRow): Promise<string | null> {
    if (person.organisation_id === null) return null;
    const r = await this.db.raw<{ rows: { email: string }[] }>(
      `with recursive up(id, parent_id, depth) as (
         select id, parent_id, 0 from ?? where id = ?
         union all
         select o.id, o.parent_id, up.depth + 1 from ?? o join up on o.id = up.parent_id)
       select p.email from up
         join ?? om on om.organisation_id = up.id
         join ?? p on p.id = om.person_id
       where coalesce(p.email, '') <> '' and p.id <> ?
       order by up.depth, p.id
       limit 1`,
      [
        this.db.ref('organisations'),
        person.organisation_id,
        this.db.ref('organisations'),
        this.db.ref('organisation_managers'),
        this.db.ref('persons'),
        person.id,
      ],
    );
    return r.rows[0]?.email ?? null;
  }
}

/** Mobiles are stored without spaces and dashes. */
export function compactMobile(identification: string): string {
  return identification.replace(/[\s-]/g, '');
}

/**
 * One rate-limit bucket per account identification however it is typed: a mobile with any
 * spacing or dashes, an e-mail address or user name in any case.
 */
export function identificationBucket(identification: string): string {
  const mobile = compactMobile(identification);
  return /^\+?\d+$/.test(mobile) ? mobile : identification.trim().toLowerCase();
}
