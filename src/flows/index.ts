/**
 * The flows: use cases that span data modules (issue 34). Routes import a flow's file directly;
 * the composition root and the CLI come in through here.
 */
import type { DependencyContainer } from 'tsyringe';
import { AUTH_SCHEMES } from '../platform/auth/auth-scheme';
import { SessionAuthScheme } from './identity/session-auth-scheme';
import { SwtAuthScheme } from './identity/swt-auth-scheme';
import { registerMessageFlows } from './messages/messages.registration';
import { registerReminderFlows } from './reminders/reminders.registration';

/** The kernel extension points flows implement, registered by the composition root after the modules. */
export function registerFlows(c: DependencyContainer): void {
  // An explicit Authorization: SWT header decides before any cookie the browser may also send.
  c.register(AUTH_SCHEMES, { useClass: SwtAuthScheme });
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  registerMessageFlows(c);
  registerReminderFlows(c);
}

/** The CLI's operator actions that span modules (the operator API calls them too). */
export { OperatorPasswordsFlow } from './tenants/operator-passwords';
