import type { NoticeRenderer, RenderedNotice } from '../notices/notice-renderer';

/**
 * The threshold a registration with `daysLeft` days of validity left has reached: the smallest
 * threshold not below it (days left 5 with [30, 7] reached 7); null when it reached none yet.
 */
export function reachedThreshold(daysLeft: number, thresholds: readonly number[]): number | null {
  const reached = thresholds.filter((t) => t >= daysLeft);
  return reached.length ? Math.min(...reached) : null;
}

/** The reached threshold and every larger one: all of them are done with one reminder. */
export function thresholdsDone(daysLeft: number, thresholds: readonly number[]): number[] {
  return thresholds.filter((t) => t >= daysLeft).sort((a, b) => a - b);
}

export interface ReminderFacts {
  competenceTitle: string;
  /** YYYY-MM-DD: the last day the registration is valid. */
  validUntil: string;
  daysLeft: number;
}

// The title becomes a mail subject: a line break from a competence title must not reach the header.
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();

/**
 * Title, text and HTML of an expiry reminder (notice type expiry_reminder): both name the competence
 * and the valid_until date, in the person's language (else the tenant's) with the language's date
 * format. `renderer`: the transaction's NoticeRenderer.
 */
export function reminderMessage(renderer: NoticeRenderer, f: ReminderFacts, person: { user_name: string; language?: string | null }): Promise<RenderedNotice> {
  return renderer.render(
    'expiry_reminder',
    { user_name: person.user_name, competence_title: oneLine(f.competenceTitle), valid_until: f.validUntil, days_left: f.daysLeft },
    person.language,
  );
}
