/**
 * The flows: use cases that span data modules (issue 34). Routes import a flow's file directly;
 * the composition root and the CLI come in through here.
 */
import type { DependencyContainer } from 'tsyringe';
import { AUTH_SCHEMES } from '../platform/auth/auth-scheme';
import { PERSON_DATA } from '../platform/privacy/personal-data';
import { SessionAuthScheme } from './identity/session-auth-scheme';
import { SwtAuthScheme } from './identity/swt-auth-scheme';
import { BearerAuthScheme } from './identity/bearer-auth-scheme';
import { registerMessageFlows } from './messages/messages.registration';
import { registerReminderFlows } from './reminders/reminders.registration';
import { registerImportFlows } from './imports/imports.registration';
import { registerReportScheduleFlows } from './reports/report-schedules.registration';
import { SurveyAnswerData } from './surveys/survey-answer-personal-data';
import { RegistrationPersonData } from './registrations/registration-personal-data';
import { PERSON_PRELOADERS } from '../platform/lifecycle/recent-persons';
import { principalPreloader } from './identity/principal-loader';
import { ownViewPreloader } from './persons/own-view-preload';

/** The kernel extension points flows implement, registered by the composition root after the modules. */
export function registerFlows(c: DependencyContainer): void {
  // An explicit Authorization: SWT header decides before any cookie the browser may also send.
  c.register(AUTH_SCHEMES, { useClass: SwtAuthScheme });
  // An API client's Authorization: Bearer token (issue 37), likewise before any cookie.
  c.register(AUTH_SCHEMES, { useClass: BearerAuthScheme });
  c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  registerMessageFlows(c);
  registerReminderFlows(c);
  registerImportFlows(c);
  registerReportScheduleFlows(c);
  // Survey answers in the GDPR export carry their survey's title (catalogue), so their holder is a flow.
  c.register(PERSON_DATA, { useClass: SurveyAnswerData });
  // Registrations in the GDPR export carry their registrar's user name (people), so their holder is a flow.
  c.register(PERSON_DATA, { useClass: RegistrationPersonData });
  // What a restarted API loads for the persons served last before it listens: account rows first, then own views.
  c.register(PERSON_PRELOADERS, { useValue: principalPreloader });
  c.register(PERSON_PRELOADERS, { useValue: ownViewPreloader });
}

/** The CLI's operator actions that span modules (the operator API calls them too). */
export { OperatorPasswordsFlow } from './tenants/operator-passwords';
