import { injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { ErasureStep, PersonDataHolder } from '../../platform/privacy/personal-data';

/** A person's calendar feed token goes with their erasure (the feed stops; deactivation stops it too, in the feed's own check). */
@injectable()
export class CalendarFeedData implements PersonDataHolder {
  async erase(tx: Transaction, personId: number): Promise<ErasureStep> {
    const n = await tx.get(TENANT_DB).table('calendar_feeds').where({ person_id: personId }).delete();
    return { details: { calendar_feeds_deleted: n } };
  }
}
