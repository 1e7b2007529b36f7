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

function howSoon(daysLeft: number): string {
  if (daysLeft <= 0) return 'today is its last valid day';
  if (daysLeft === 1) return '1 day left';
  return `${daysLeft} days left`;
}

/** Title and text of an expiry reminder: both name the competence and the valid_until date. */
export function reminderMessage(f: ReminderFacts): { title: string; text: string } {
  const title = oneLine(f.competenceTitle);
  return {
    // no quotes in the subject: mailers would MIME-encode the whole header for them
    title: `Reminder: ${title} is valid until ${f.validUntil}`,
    text:
      `Your registration of "${title}" is valid until ${f.validUntil} (${howSoon(f.daysLeft)}). ` +
      'Renew it before then to keep the competence; a new registration replaces this one.',
  };
}
