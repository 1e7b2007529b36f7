import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Paging } from '../../platform/http/param-types';
import type { PersonEventRow } from './person-event.presenter';

export interface PersonEventFilters {
  personIds?: number[] | Knex.QueryBuilder | Knex.Raw;
  eventIds?: number[];
  personEventIds?: number[];
  mode: 'future' | 'finished' | 'all';
  waitlist: boolean;
}

@injectable()
export class PersonEventsRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  base(db: TenantDb = this.db): Knex.QueryBuilder {
    return db
      .table('person_events as pe')
      .join('persons as p', 'p.id', 'pe.person_id')
      .join('events as e', 'e.id', 'pe.event_id')
      .leftJoin('orders as o', 'o.id', 'pe.order_id')
      .select(
        'pe.id', 'pe.person_id', 'p.user_name', 'pe.event_id', 'e.title as event_title', 'e.starts_at', 'e.ends_at',
        'pe.status', 'pe.passed', 'pe.order_id', 'o.reference as order_reference', 'pe.created_at', 'pe.signed_off_at',
      );
  }

  async byId(id: number, db: TenantDb = this.db): Promise<PersonEventRow> {
    return this.base(db).where('pe.id', id).first();
  }

  async live(personId: number, eventId: number): Promise<PersonEventRow | undefined> {
    return this.base().where({ 'pe.person_id': personId, 'pe.event_id': eventId }).whereNot('pe.status', 'signed_off').first();
  }

  async list(f: PersonEventFilters, paging: Paging, now: Date): Promise<PersonEventRow[]> {
    const q = this.base().where('pe.status', f.waitlist ? 'waitlist' : 'signed_on');
    if (f.personIds) q.whereIn('pe.person_id', f.personIds as any);
    if (f.eventIds?.length) q.whereIn('pe.event_id', f.eventIds);
    if (f.personEventIds?.length) q.whereIn('pe.id', f.personEventIds);
    if (f.mode === 'future') q.where('e.ends_at', '>=', now);
    else if (f.mode === 'finished') q.where('e.ends_at', '<', now);
    return q.orderBy([{ column: 'e.starts_at' }, { column: 'pe.id' }]).limit(paging.limit).offset(paging.offset);
  }
}
