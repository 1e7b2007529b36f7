import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { ErasureStep, ExportPage, PersonDataHolder, PersonKey } from '../../platform/privacy/personal-data';

/**
 * Notification preferences in a person's export (section `notificationpreferences`: the choices
 * they made, by notice type) and erasure (deleted: a choice says something about the person).
 */
@injectable()
export class NotificationPreferenceData implements PersonDataHolder {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async export(person: PersonKey, page: ExportPage) {
    const rows = await this.db
      .table('notification_preferences')
      .where('person_id', person.id)
      .orderBy('notice_type')
      .limit(page.limit)
      .offset(page.offset)
      .select('notice_type', 'medium', 'updated_at');
    return { notificationpreferences: rows };
  }

  async erase(tx: Transaction, personId: number): Promise<ErasureStep> {
    const removed = await tx.get(TENANT_DB).table('notification_preferences').where('person_id', personId).delete();
    return { details: { notification_preferences: removed } };
  }
}
