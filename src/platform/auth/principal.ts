/** Why an account must change its password before anything else works (errorcode 418). */
export type PasswordChangeReason = 'expired' | 'changed_by_other' | 'sent_by_mail';

/** The logged-in person of a request, resolved within the request's tenant. */
export interface Principal {
  personId: number;
  userName: string;
  superuser: boolean;
  organisationId: number | null;
  mustChangePassword: PasswordChangeReason | null;
  /** How the caller proved it: the tg-visit session, an SWT header, or an API client's Bearer token. */
  via: 'session' | 'swt' | 'bearer';
  sessionId?: string;
  /**
   * via 'bearer' only: the OAuth scopes of the token (api.read, api.write, scim) and the API
   * client's id. A router that needs a scope (SCIM: `scim`) checks `principal.scopes?.includes(...)`.
   */
  scopes?: readonly string[];
  clientId?: string;
}

/**
 * The person a change is written as (deactivated_by, created_by): null for an API client acting as
 * itself (SCIM provisioning: personId 0, userName `client:<client_id>`), which is no person.
 */
export function actingPersonId(p: Principal): number | null {
  return p.personId > 0 ? p.personId : null;
}

export const PASSWORD_CHANGE_MESSAGES: Record<PasswordChangeReason, string> = {
  expired: 'your password has expired; set a new one with PUT /api/persons/[your user_name]',
  changed_by_other: 'your password was set by someone else; choose your own with PUT /api/persons/[your user_name]',
  sent_by_mail: 'you logged in with a password sent by e-mail; choose your own with PUT /api/persons/[your user_name]',
};
