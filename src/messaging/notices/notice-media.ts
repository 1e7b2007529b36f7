import type { Medium } from '../messages/message-rows';

/** What a person may choose per notice type (issue 39 item 5). */
export const PREFERENCE_MEDIA = ['email', 'sms', 'both', 'none'] as const;
export type PreferenceMedium = (typeof PREFERENCE_MEDIA)[number];

/** Without a choice: e-mail, else SMS (what every notice did before preferences). */
export const DEFAULT_PREFERENCE: PreferenceMedium = 'email';

/** A recipient and their addresses. */
export interface Reachable {
  id: number;
  email: string | null;
  mobile: string | null;
}

export interface NoticeDelivery {
  medium: Medium;
  address: string;
}

/**
 * The deliveries a notice gets under a preference: the chosen medium when the person has its
 * address, else the other one (a missing address falls back, as before preferences); `both` gives
 * one per address the person has; `none` nothing; no address at all: nothing.
 */
export function deliveriesFor(preference: PreferenceMedium, to: Pick<Reachable, 'email' | 'mobile'>): NoticeDelivery[] {
  const email: NoticeDelivery | null = to.email ? { medium: 'email', address: to.email } : null;
  const sms: NoticeDelivery | null = to.mobile ? { medium: 'sms', address: to.mobile } : null;
  switch (preference) {
    case 'none':
      return [];
    case 'both':
      return [email, sms].filter((d): d is NoticeDelivery => d !== null);
    case 'sms':
      return sms ? [sms] : email ? [email] : [];
    default:
      return email ? [email] : sms ? [sms] : [];
  }
}

/** The message's send_medium for its deliveries (`both` when it goes by both). */
export function sendMediumOf(deliveries: readonly NoticeDelivery[]): 'email' | 'sms' | 'both' {
  return deliveries.length > 1 ? 'both' : (deliveries[0]?.medium ?? 'email');
}
