import type { PersonRow } from '../../people';

/** The person facts messaging needs, read through the people module's PersonDirectory. */
export const RECIPIENT_COLUMNS = ['id', 'user_name', 'organisation_id', 'email', 'mobile'] as const;
export type Recipient = Pick<PersonRow, (typeof RECIPIENT_COLUMNS)[number]>;
