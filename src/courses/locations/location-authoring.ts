import { inject, injectable } from 'tsyringe';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit';
import { LocationWrites, type LocationData, type LocationUpdateData } from './location-writes';

/**
 * POST, PUT and DELETE /api/locations: each change with its audit entry (location.created|updated|
 * deleted, subject the location id, details the fields given) in one transaction. Lowering the
 * capacity below an upcoming event's max_participants, or deleting a location any event names, is
 * a 409 naming the event(s).
 */
@injectable()
export class LocationAuthoring {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  async create(user: Principal, data: LocationData): Promise<number> {
    return this.uow.run(async (tx) => {
      const id = await tx.get(LocationWrites).insert(data);
      await tx.get(AuditTrail).record({ type: 'location.created', actor: user.userName, subject: String(id), details: { fields: Object.keys(data) } });
      return id;
    });
  }

  async update(user: Principal, id: number, data: LocationUpdateData): Promise<void> {
    await this.uow.run(async (tx) => {
      const writes = tx.get(LocationWrites);
      // locked: an event booked into it meanwhile (EventChecks locks it too) sees the new capacity
      const location = await writes.findForUpdate(id);
      if (!location) throw ApiError.notFound(`location ${id}`);
      if (data.capacity !== undefined && data.capacity !== null) {
        const larger = await writes.largerEvent(id, data.capacity);
        if (larger) {
          throw new ApiError(
            409,
            `location ${id} hosts event ${larger.id} "${larger.title}" with max_participants ${larger.max_participants}; capacity cannot go below that`,
          );
        }
      }
      if (!Object.keys(data).length) return;
      await writes.update(id, data);
      await tx.get(AuditTrail).record({ type: 'location.updated', actor: user.userName, subject: String(id), details: { fields: Object.keys(data) } });
    });
  }

  async delete(user: Principal, id: number): Promise<void> {
    await this.uow.run(async (tx) => {
      const writes = tx.get(LocationWrites);
      const location = await writes.findForUpdate(id);
      if (!location) throw ApiError.notFound(`location ${id}`);
      const events = await writes.eventCount(id);
      if (events > 0)
        throw new ApiError(409, `location ${id} is used by ${events} event(s) (cancelled and past ones too); move them to another location first`);
      await writes.delete(id);
      await tx.get(AuditTrail).record({ type: 'location.deleted', actor: user.userName, subject: String(id), details: { fields: [], name: location.name } });
    });
  }
}
