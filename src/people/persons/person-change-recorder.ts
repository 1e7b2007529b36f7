import { inject, injectable } from 'tsyringe';
import type { Transaction } from '../../platform/tenancy/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { AuditTrail } from '../../platform/audit';
import { CONTACT_CHANGE_NOTIFIER, type ContactChangeNotifier } from './contact-change-notifier';
import type { PersonRow } from '../person-row';

export interface PersonChange {
  user: Principal;
  target: PersonRow;
  /** Columns written (a password as password_hash). */
  changes: Record<string, unknown>;
  rolesBefore?: number[];
  rolesAfter?: number[];
}

const sorted = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * The security side of a person change, written in the change's transaction: audit entries
 * (password, e-mail, mobile, roles) and the notice of a password, e-mail or mobile change to
 * the previous e-mail address.
 */
@injectable()
export class PersonChangeRecorder {
  constructor(@inject(CONTACT_CHANGE_NOTIFIER) private readonly notifier: ContactChangeNotifier) {}

  async record(tx: Transaction, c: PersonChange): Promise<void> {
    const audit = tx.get(AuditTrail);
    const base = { actor: c.user.userName, subject: c.target.user_name };
    const self = c.user.personId === c.target.id;
    const noticed: ('email' | 'mobile' | 'password')[] = [];
    if (c.changes.password_hash !== undefined) {
      noticed.push('password');
      // set by someone else, the person must choose a new one at next login: that is a reset
      await audit.record({ ...base, type: self ? 'password.changed' : 'password.reset', details: { by: self ? 'self' : 'other' } });
    }
    for (const field of ['email', 'mobile'] as const) {
      if (c.changes[field] === undefined || c.changes[field] === c.target[field]) continue;
      noticed.push(field);
      // the values themselves are personal data the log does not need; whether one was set is enough
      await audit.record({ ...base, type: `${field}.changed`, details: { by: self ? 'self' : 'other', had_value: c.target[field] !== null, has_value: c.changes[field] !== null } });
    }
    if (c.rolesAfter) await this.rolesChanged(tx, c.user, c.target.user_name, c.rolesBefore ?? [], c.rolesAfter);
    if (noticed.length && c.target.email) {
      await this.notifier.write(tx, { personId: c.target.id, userName: c.target.user_name, oldEmail: c.target.email, fields: noticed, changedBy: c.user.userName });
    }
  }

  /** roles.changed with what was added and removed; nothing when the set stayed the same. */
  async rolesChanged(tx: Transaction, user: Principal, subject: string, before: number[], after: number[]): Promise<void> {
    const b = sorted(before);
    const a = sorted(after);
    const added = a.filter((id) => !b.includes(id));
    const removed = b.filter((id) => !a.includes(id));
    if (!added.length && !removed.length) return;
    await tx.get(AuditTrail).record({ type: 'roles.changed', actor: user.userName, subject, details: { added, removed } });
  }
}
