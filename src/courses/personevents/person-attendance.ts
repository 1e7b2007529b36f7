import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { PersonDataHolder, PersonKey, ExportPage } from '../../platform/privacy/personal-data';

/** Sign-ons of a person: which events exist (the 404 of the event_id filter of person lists), and the GDPR export. */
@injectable()
export class Attendance implements PersonDataHolder {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  missing(eventIds: number[]): Promise<number[]> {
    return missingIds(this.db, 'events', eventIds);
  }

  async export(person: PersonKey, page: ExportPage) {
    const personevents = await this.db
      .table('person_events as pe')
      .join('events as e', 'e.id', 'pe.event_id')
      .leftJoin('orders as o', 'o.id', 'pe.order_id')
      .where('pe.person_id', person.id)
      .select(
        'pe.id as person_event_id',
        'pe.event_id',
        'e.title as event_title',
        'e.starts_at as startdate',
        'e.ends_at as enddate',
        'pe.status',
        'pe.passed',
        'o.reference as order_reference',
        'pe.created_at as signed_on_at',
        'pe.signed_off_at',
      )
      .orderBy('pe.id')
      .limit(page.limit)
      .offset(page.offset);
    return { personevents };
  }
}
