import { inject, injectable } from 'tsyringe';
import { TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { NOTICE_TYPES, SECURITY_NOTICE_TYPES, type NoticeType } from './notice-types';
import { deliveriesFor, DEFAULT_PREFERENCE, type NoticeDelivery, type PreferenceMedium, type Reachable } from './notice-media';

export { deliveriesFor, DEFAULT_PREFERENCE, PREFERENCE_MEDIA, type NoticeDelivery, type PreferenceMedium, type Reachable } from './notice-media';

/** One notice type as a person's preferences show it. */
export interface PreferenceView {
  notice_type: NoticeType;
  /** What the notice goes by for this person: their choice, else the default. */
  medium: PreferenceMedium;
  default: PreferenceMedium;
  /** The person chose `medium` (a row), rather than taking the default. */
  chosen: boolean;
  /** It cannot be turned off (`none`): a security notice, or one the tenant requires (messages.required_notices). */
  required: boolean;
  required_by: 'security' | 'tenant' | null;
}

/**
 * A person's notification preferences (issue 39 item 5): per notice type, e-mail, SMS, both or
 * none (table notification_preferences; no row: the default, e-mail). Every producer of a system
 * notice asks `deliveries` (or `mediaFor`) for the addresses to write, so the choice is applied in
 * one place: the chosen medium when the person has an address for it, else the other one (as
 * before preferences), both when both were chosen and exist, none when turned off. Security
 * notices and those in the tenant's `messages.required_notices` are never `none`: a choice of
 * `none` stored before the tenant required the type counts as the default. Got by `tx.get` it
 * reads and writes in that transaction.
 */
@injectable()
export class NotificationPreferences {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  /** Why `type` cannot be turned off, or null. */
  requiredBy(type: NoticeType): 'security' | 'tenant' | null {
    if (SECURITY_NOTICE_TYPES.includes(type)) return 'security';
    return (this.tenant.config.get('messages.required_notices') as readonly string[]).includes(type) ? 'tenant' : null;
  }

  /** Each recipient's medium for `type` (their choice or the default; never `none` for a required type). One query. */
  async mediaFor(recipientIds: readonly number[], type: NoticeType): Promise<Map<number, PreferenceMedium>> {
    const media = new Map<number, PreferenceMedium>(recipientIds.map((id) => [id, DEFAULT_PREFERENCE]));
    const ids = [...new Set(recipientIds)];
    if (!ids.length) return media;
    const rows: { person_id: number; medium: PreferenceMedium }[] = await this.db
      .table('notification_preferences')
      .whereIn('person_id', ids)
      .where('notice_type', type)
      .select('person_id', 'medium');
    const required = this.requiredBy(type) !== null;
    for (const r of rows) media.set(r.person_id, required && r.medium === 'none' ? DEFAULT_PREFERENCE : r.medium);
    return media;
  }

  /** The deliveries of `type` to each recipient (by id): empty when turned off or without any address. */
  async deliveries(recipients: readonly Reachable[], type: NoticeType): Promise<Map<number, NoticeDelivery[]>> {
    const media = await this.mediaFor(
      recipients.map((r) => r.id),
      type,
    );
    return new Map(recipients.map((r) => [r.id, deliveriesFor(media.get(r.id) ?? DEFAULT_PREFERENCE, r)]));
  }

  /** Every notice type with the person's medium, the default and whether it is required. */
  async list(personId: number): Promise<PreferenceView[]> {
    const rows: { notice_type: string; medium: PreferenceMedium }[] = await this.db
      .table('notification_preferences')
      .where('person_id', personId)
      .select('notice_type', 'medium');
    const chosen = new Map(rows.map((r) => [r.notice_type, r.medium]));
    return NOTICE_TYPES.map((type) => {
      const requiredBy = this.requiredBy(type);
      const mine = chosen.get(type);
      const medium = mine === undefined || (requiredBy && mine === 'none') ? DEFAULT_PREFERENCE : mine;
      return { notice_type: type, medium, default: DEFAULT_PREFERENCE, chosen: mine !== undefined, required: requiredBy !== null, required_by: requiredBy };
    });
  }

  /**
   * Sets the given types (null: back to the default); the others stay. `none` for a required type
   * is a 420 naming every such parameter (`preferences[password_reset]`), before anything is written.
   * Returns what changed, `{type: {from, to}}` (the effective media before and after).
   */
  async update(
    personId: number,
    choices: Partial<Record<NoticeType, PreferenceMedium | null>>,
  ): Promise<Record<string, { from: PreferenceMedium; to: PreferenceMedium }>> {
    const refused = Object.entries(choices)
      .filter(([type, medium]) => medium === 'none' && this.requiredBy(type as NoticeType) !== null)
      .map(([type]) => type);
    if (refused.length) {
      const names = refused.map((t) => `preferences[${t}]`);
      throw ApiError.malformed(
        names.join(', '),
        `${refused.join(', ')} cannot be turned off (${refused.map((t) => `${t}: ${this.requiredBy(t as NoticeType) === 'security' ? 'a security notice' : 'required by the tenant'}`).join('; ')}); choose email, sms or both`,
      );
    }
    const before = new Map((await this.list(personId)).map((v) => [v.notice_type, v.medium]));
    const set = Object.entries(choices).filter(([, m]) => m !== null && m !== undefined) as [NoticeType, PreferenceMedium][];
    const cleared = Object.entries(choices)
      .filter(([, m]) => m === null)
      .map(([t]) => t);
    if (set.length) {
      await this.db.raw(
        `insert into ?? as np (person_id, notice_type, medium)
         select ?, x.notice_type, x.medium from jsonb_to_recordset(?::jsonb) as x(notice_type text, medium text)
         on conflict (person_id, notice_type) do update set medium = excluded.medium, updated_at = now()
         where np.medium is distinct from excluded.medium`,
        [this.db.ref('notification_preferences'), personId, JSON.stringify(set.map(([notice_type, medium]) => ({ notice_type, medium })))],
      );
    }
    if (cleared.length) await this.db.table('notification_preferences').where('person_id', personId).whereIn('notice_type', cleared).delete();
    const after = new Map((await this.list(personId)).map((v) => [v.notice_type, v.medium]));
    const changed: Record<string, { from: PreferenceMedium; to: PreferenceMedium }> = {};
    for (const [type, to] of after) if (before.get(type) !== to) changed[type] = { from: before.get(type)!, to };
    return changed;
  }

  /** The person's own choices, for their data export (GDPR article 15). */
  async exportOf(personId: number): Promise<{ notice_type: string; medium: PreferenceMedium; updated_at: Date }[]> {
    return this.db.table('notification_preferences').where('person_id', personId).orderBy('notice_type').select('notice_type', 'medium', 'updated_at');
  }

  /** The erasure (GDPR article 17): the person's choices go. Returns how many. */
  async eraseOf(personId: number): Promise<number> {
    return this.db.table('notification_preferences').where('person_id', personId).delete();
  }
}
