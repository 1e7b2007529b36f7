import { inject, injectable } from 'tsyringe';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { PersonChangeRecorder, assertMayChange, assertMayChangeSuperadmin, type PersonRow } from '../../people';
import { PersonRolesStore } from '../../catalogue';
import { requireKnown } from './known-ids';

/**
 * DELETE /api/persons/[user_name]: takes roles (catalogue) from a person (people), with the
 * roles.changed audit entry and the person.updated event in the same transaction (uow.run).
 */
@injectable()
export class RemovePersonRolesFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
  ) {}

  /** `target`: the person as the route's access rule read them. Answers how many of the roles were held. */
  async remove(user: Principal, target: PersonRow, roleIds: number[]): Promise<number> {
    assertMayChange(user, target);
    assertMayChangeSuperadmin(user, target, {}, true);
    await requireKnown('role', roleIds, (ids) => this.roles.missing(ids));
    return this.uow.run(async (tx) => {
      const roles = tx.get(PersonRolesStore);
      const before = await roles.ids(target.id);
      const removed = await roles.remove(target.id, [...new Set(roleIds)]);
      const recorder = tx.get(PersonChangeRecorder);
      await recorder.rolesChanged(
        user,
        target.user_name,
        before,
        before.filter((id) => !roleIds.includes(id)),
      );
      if (removed > 0) await recorder.updated(target, ['roles']);
      return removed;
    });
  }
}
