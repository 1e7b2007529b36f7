import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/**
 * The competence level in one statement, over any set of persons: one person, or the persons of an
 * organisation and every unit below it (their ids come from the people module, PersonDirectory). The same rules as CompetenceStates (competence-state.ts),
 * written as SQL so that an organisation of 10,000 persons costs one statement, not four per person:
 *
 * - required = (person, competence) pairs where the competence is active and mandatory for at least
 *   one of the person's roles;
 * - a pair is held when the current registration (not superseded, not deleted) is not expired on
 *   `today` (the tenant's calendar day) and, by the competence's type: checklist item checked or
 *   overridden, signature signed, anything else passed > 0; a checklist is also held when it has
 *   items and every direct item is held by the same rule.
 */
export interface LevelCounts {
  persons: number;
  required: number;
  fulfilled: number;
}

/** SQL for "registration `r` makes its competence, of type `type`, held on :today". */
const ownHeld = (type: string, r: string) => `((${r}.valid_until is null or ${r}.valid_until >= :today::date)
      and case ${type}
            when 'checklist_item' then coalesce(${r}.checked, false) or ${r}.override
            when 'signature' then coalesce(${r}.signed, false)
            else ${r}.passed > 0
          end)`;

/*
 * Required is counted per role set, not per person: persons with the same roles require the same
 * competences, and an organisation has far fewer role sets than persons. Fulfilled is counted from
 * the registrations' side (held pairs that are required), so no (person, competence) pair list of
 * everything required is ever built.
 */
const LEVEL_SQL = `
  with members as (select distinct unnest(:ids::int[]) as id),
  role_sets as (
    select pr.person_id, array_agg(pr.role_id order by pr.role_id) as roles
      from :person_roles: pr
     where pr.person_id in (select id from members)
     group by pr.person_id
  ),
  sets as (select roles, count(*) as persons, row_number() over () as set_id from role_sets group by roles),
  person_sets as (select r.person_id, s.set_id from role_sets r join sets s on s.roles = r.roles),
  set_required as (
    select distinct s.set_id, q.competence_id
      from sets s
      cross join lateral unnest(s.roles) as r(role_id)
      join :requirements: q on q.role_id = r.role_id and q.mandatory
      join :competences: c on c.id = q.competence_id and c.active
  ),
  current as (
    select pc.person_id, pc.competence_id, c.parent_id, ${ownHeld('c.type', 'pc')} as held
      from :person_competences: pc
      join :competences: c on c.id = pc.competence_id
     where pc.person_id in (select person_id from role_sets) and pc.superseded_at is null and pc.deleted_at is null
  ),
  checklist_sizes as (
    select i.parent_id, count(*) as items
      from :competences: i join :competences: k on k.id = i.parent_id and k.type = 'checklist'
     group by i.parent_id
  ),
  held as (
    select r.person_id, r.competence_id from current r where r.held
    union all
    -- a checklist not held by its own registration, every item of which is held
    select r.person_id, r.parent_id
      from current r join checklist_sizes k on k.parent_id = r.parent_id
     where r.held
       and not exists (select 1 from current o where o.person_id = r.person_id and o.competence_id = r.parent_id and o.held)
     group by r.person_id, r.parent_id, k.items
    having count(*) = k.items
  )
  select (select count(*) from members)::int as persons,
         (select coalesce(sum(s.persons), 0) from sets s join set_required q on q.set_id = s.set_id)::int as required,
         (select count(*) from held h
            join person_sets p on p.person_id = h.person_id
            join set_required q on q.set_id = p.set_id and q.competence_id = h.competence_id)::int as fulfilled`;

function tables(db: TenantDb) {
  const names = ['person_roles', 'requirements', 'competences', 'person_competences'];
  return Object.fromEntries(names.map((n) => [n, db.ref(n)]));
}

/** Summed over the given persons (passed as one int[] literal: a list of 10,000 ids stays one parameter) (an organisation's subtree: PersonDirectory.idsInSubtree), or one person's counts. */
export async function competenceLevel(db: TenantDb, personIds: readonly number[], today: string): Promise<LevelCounts> {
  const r = await db.raw<{ rows: LevelCounts[] }>(LEVEL_SQL, { ...tables(db), ids: `{${personIds.map((id) => Math.trunc(id)).join(',')}}`, today } as any);
  return r.rows[0];
}
