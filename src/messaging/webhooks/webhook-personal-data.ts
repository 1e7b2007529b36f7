import { injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { ErasedPerson, ErasureStep, PersonDataHolder } from '../../platform/privacy/personal-data';

/** Keys whose value names who acted or who it is about: they get the placeholder, other copies become null. */
const NAME_KEY = /(^|_)(user_name|by)$/;

/** The body with every string equal to one of `values` replaced; `changed` says whether there was one. */
function scrub(value: unknown, values: Set<string>, placeholder: string, key = ''): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    if (!values.has(value)) return { value, changed: false };
    return { value: NAME_KEY.test(key) ? placeholder : null, changed: true };
  }
  if (Array.isArray(value)) {
    const parts = value.map((v) => scrub(v, values, placeholder, key));
    return { value: parts.map((p) => p.value), changed: parts.some((p) => p.changed) };
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const p = scrub(v, values, placeholder, k);
      out[k] = p.value;
      changed ||= p.changed;
    }
    return { value: out, changed };
  }
  return { value, changed: false };
}

/**
 * The webhooks' part of an erasure (GDPR, PERSON_DATA): an event body is the exact text sent, kept
 * for retries and the delivery history, and it copies the person's user name, e-mail, mobile and
 * names. Every event that mentions any of them (or is about the person's id) is rewritten: user
 * names (`user_name`, `registered_by`, ...) become the placeholder, other copies null. A delivery
 * still waiting sends the rewritten body. Nothing to export: the bodies are copies of data the
 * export holds from its source.
 */
@injectable()
export class WebhookEventPersonalData implements PersonDataHolder {
  async erase(tx: Transaction, personId: number, person: ErasedPerson): Promise<ErasureStep> {
    const db = tx.get(TENANT_DB);
    const values = new Set(person.identifiers);
    const rows: { id: string; body: string }[] = await db
      .table('webhook_events')
      .where((w) => {
        w.whereRaw("(body::jsonb #>> '{data,person_id}') = ?", [String(personId)]);
        for (const v of values) w.orWhereRaw('strpos(body, ?) > 0', [JSON.stringify(v)]);
      })
      .select('id', 'body');
    let rewritten = 0;
    for (const row of rows) {
      const { value, changed } = scrub(JSON.parse(row.body), values, person.placeholder);
      if (!changed) continue;
      await db
        .table('webhook_events')
        .where({ id: row.id })
        .update({ body: JSON.stringify(value) });
      rewritten += 1;
    }
    return { details: { webhook_events_rewritten: rewritten } };
  }
}
