import { inject, injectable } from 'tsyringe';
import { TRANSACTION, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { AuditTrail } from '../../platform/audit';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import type { PersonRow } from '../person-row';
import { presentPersonSimple } from './person.presenter';

export interface PersonChange {
  user: Principal;
  /** The person before the change. */
  target: PersonRow;
  /** Columns written (a password as password_hash). */
  changes: Record<string, unknown>;
  rolesBefore?: number[];
  rolesAfter?: number[];
}

/** What a notice to the previous e-mail address names. */
export type ContactField = 'email' | 'mobile' | 'password';

const sorted = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * What a person change leaves besides the row, written in the change's transaction (got by
 * `tx.get(PersonChangeRecorder)`): the security event log entries (password, e-mail, mobile, roles)
 * and the person.created / person.updated webhook events.
 */
@injectable()
export class PersonChangeRecorder {
  constructor(@inject(TRANSACTION) private readonly tx: Transaction) {}

  /** Audit entries of the change; answers which of password, e-mail and mobile changed (for the notice to the old address). */
  async changed(c: PersonChange): Promise<ContactField[]> {
    const audit = this.tx.get(AuditTrail);
    const base = { actor: c.user.userName, subject: c.target.user_name };
    const self = c.user.personId === c.target.id;
    const noticed: ContactField[] = [];
    if (c.changes.password_hash !== undefined) {
      noticed.push('password');
      // set by someone else, the person must choose a new one at next login: that is a reset
      await audit.record({ ...base, type: self ? 'password.changed' : 'password.reset', details: { by: self ? 'self' : 'other' } });
    }
    for (const field of ['email', 'mobile'] as const) {
      if (c.changes[field] === undefined || c.changes[field] === c.target[field]) continue;
      noticed.push(field);
      // the values themselves are personal data the log does not need; whether one was set is enough
      await audit.record({
        ...base,
        type: `${field}.changed`,
        details: { by: self ? 'self' : 'other', had_value: c.target[field] !== null, has_value: c.changes[field] !== null },
      });
    }
    if (c.rolesAfter) await this.rolesChanged(c.user, c.target.user_name, c.rolesBefore ?? [], c.rolesAfter);
    return noticed;
  }

  /** roles.changed with what was added and removed; nothing when the set stayed the same. */
  async rolesChanged(user: Principal, subject: string, before: number[], after: number[]): Promise<void> {
    const b = sorted(before);
    const a = sorted(after);
    const added = a.filter((id) => !b.includes(id));
    const removed = b.filter((id) => !a.includes(id));
    if (!added.length && !removed.length) return;
    await this.tx.get(AuditTrail).record({ type: 'roles.changed', actor: user.userName, subject, details: { added, removed } });
  }

  /** person.updated: the person as they are now and which fields changed (never their old values). */
  async updated(person: PersonRow, changed: string[]): Promise<void> {
    if (changed.length === 0) return;
    await this.tx.get(OUTBOUND_EVENTS).record('person.updated', { ...presentPersonSimple(person), changed });
  }

  async created(person: PersonRow): Promise<void> {
    await this.tx.get(OUTBOUND_EVENTS).record('person.created', presentPersonSimple(person));
  }
}
