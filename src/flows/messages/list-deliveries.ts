import { inject, injectable } from 'tsyringe';
import type { Paging } from '../../platform/http/param-types';
import { DeliveryAdminService, type DeliveryFilterState, type DeliveryListRow } from '../../messaging';
import { withUserNames } from './user-names';

/** GET /api/messages/deliveries: messaging's deliveries with the user names of sender and recipient (people's), in one statement. */
@injectable()
export class ListDeliveriesFlow {
  constructor(@inject(DeliveryAdminService) private readonly deliveries: DeliveryAdminService) {}

  /** Failed first (they need attention), then newest. */
  async list(filter: { state?: DeliveryFilterState; since: Date }, page: Paging): Promise<DeliveryListRow[]> {
    return withUserNames(this.deliveries.list(filter, page));
  }
}
