import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../platform/tokens';
import type { TenantDb } from '../platform/tenant-scope/tenant-db';

/** How a notice reaches a person: e-mail, else mobile (SMS). */
export interface PersonContact {
  id: number;
  user_name: string;
  email: string | null;
  mobile: string | null;
  /** BCP 47: the language of the person's notices (null: the tenant's). */
  language: string | null;
}

/**
 * Persons' contacts and their managers, for notices about many persons at once (an event's
 * cancellation). A person's manager is PersonAccess's: whoever manages the person's organisation or
 * one above it. A notice copies the **nearest** of them: the managers of the person's own
 * organisation, else of the nearest organisation above it that has one (the person themself never
 * counts), as the expiry reminder's manager copy does (PersonDirectory.managerEmail). A deactivated
 * manager is no manager here: the copy goes to the nearest active ones.
 */
@injectable()
export class PersonManagers {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /** The contacts of these persons, by id (unknown ids are left out). */
  async contacts(ids: readonly number[]): Promise<Map<number, PersonContact>> {
    if (!ids.length) return new Map();
    const rows: PersonContact[] = await this.db
      .table('persons')
      .whereIn('id', [...new Set(ids)])
      .select('id', 'user_name', 'email', 'mobile', 'language');
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Each person's nearest managers with their contacts (one statement); a person without any is left out. */
  async nearest(ids: readonly number[]): Promise<Map<number, PersonContact[]>> {
    const out = new Map<number, PersonContact[]>();
    if (!ids.length) return out;
    const { rows } = await this.db.raw<{ rows: (PersonContact & { person_id: number })[] }>(
      `with recursive up(person_id, organisation_id, depth) as (
         select id, organisation_id, 0 from ?? where id = any(?) and organisation_id is not null
         union all
         select up.person_id, o.parent_id, up.depth + 1 from up join ?? o on o.id = up.organisation_id where o.parent_id is not null),
       managing as (
         select up.person_id, om.person_id as manager_id, up.depth from up
           join ?? om on om.organisation_id = up.organisation_id
           join ?? mp on mp.id = om.person_id and mp.deactivated_at is null
          where om.person_id <> up.person_id),
       nearest as (
         select distinct on (person_id, manager_id) person_id, manager_id, depth from managing m
          where depth = (select min(depth) from managing n where n.person_id = m.person_id))
       select nearest.person_id, p.id, p.user_name, p.email, p.mobile, p.language from nearest join ?? p on p.id = nearest.manager_id
        order by nearest.person_id, p.id`,
      [
        this.db.ref('persons'),
        [...new Set(ids)],
        this.db.ref('organisations'),
        this.db.ref('organisation_managers'),
        this.db.ref('persons'),
        this.db.ref('persons'),
      ],
    );
    for (const { person_id, ...manager } of rows) out.set(person_id, [...(out.get(person_id) ?? []), manager]);
    return out;
  }
}
