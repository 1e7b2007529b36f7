/**
 * The HTTP surface (issue 34): every /api route, the operator API under /platform, the files'
 * multipart glue and the tenant admin page, above the modules. A route file imports the kernel
 * and the faces (index.ts) of the modules it serves, never deeper; no module and no kernel file
 * imports src/routes/ (.dependency-cruiser.cjs).
 */
import type { RouteDefinition, RouteGroup } from '../platform/http/define-route';
import { auditLogRoutes } from '../platform/audit';
import { loginRoutes } from './identity/login.routes';
import { signonRoutes } from './identity/signon.routes';
import { apiClientRoutes } from './identity/apiclients.routes';
import { identityProviderRoutes } from './identity/identity-providers.routes';
import { ssoRoutes } from './identity/sso.routes';
import { samlRoutes } from './identity/saml.routes';
import { credentialKeyRoutes } from './identity/credential-keys.routes';
import { configItemCheckRoutes } from './tenancy/config-item-checks.routes';
import { configItemAdminRoutes } from './tenancy/config-items-admin.routes';
import { configItemRoutes } from './tenancy/config-items.routes';
import { personRoutes } from './people/persons.routes';
import { privacyRoutes } from './people/privacy.routes';
import { personLifecycleRoutes } from './people/person-lifecycle.routes';
import { organisationRoutes } from './people/organisations.routes';
import { organisationMemberRoutes } from './people/organisation-members.routes';
import { organisationManagerRoutes } from './people/organisation-managers.routes';
import { competenceRoutes } from './catalogue/competences.routes';
import { catalogueTreeRoutes } from './catalogue/catalogue-tree.routes';
import { roleRoutes } from './catalogue/roles.routes';
import { organisationalFunctionRoutes } from './catalogue/organisational-functions.routes';
import { personCompetenceRoutes } from './catalogue/personcompetences.routes';
import { certificateRoutes } from './catalogue/certificates.routes';
import { competenceLevelRoutes } from './catalogue/competence-level.routes';
import { reportRoutes } from './catalogue/reports.routes';
import { reportScheduleRoutes } from './catalogue/report-schedules.routes';
import { changesRoutes } from './catalogue/changes.routes';
import { competenceAuthoringRoutes } from './catalogue/competence-authoring.routes';
import { catalogueStructureRoutes } from './catalogue/catalogue-structure.routes';
import { roleAuthoringRoutes } from './catalogue/role-authoring.routes';
import { deliveryAdminRoutes } from './messaging/delivery-admin.routes';
import { messageRoutes } from './messaging/messages.routes';
import { forgotPasswordRoutes } from './messaging/forgot-password.routes';
import { webhookRoutes } from './messaging/webhooks.routes';
import { notificationPreferenceRoutes } from './messaging/notification-preferences.routes';
import { messageTemplateRoutes } from './messaging/messagetemplates.routes';
import { eventRoutes } from './courses/events.routes';
import { personEventRoutes } from './courses/personevents.routes';
import { participantRoutes } from './courses/participants.routes';
import { locationRoutes } from './courses/locations.routes';
import { eventAuthoringRoutes } from './courses/event-authoring.routes';
import { locationAuthoringRoutes } from './courses/location-authoring.routes';
import { surveyAnswerRoutes } from './courses/surveyanswers.routes';
import { fileRoutes } from './courses/files.routes';
import { orderRoutes } from './courses/orders.routes';
import { calendarFeedRoutes } from './courses/calendar.routes';
import { calendarFeedOpenApi } from './courses/calendar-feed.openapi';
import { operatorRoutes } from './tenancy/platform.routes';
import { importRoutes } from './tenancy/imports.routes';
import { oauthTokenOpenApi } from './identity/oauth-token.openapi';
import { scimOpenApi } from './identity/scim-openapi';
import type { OpenApiExtra } from '../platform/openapi/openapi-document';
import { OPENAPI_TAGS } from './openapi-tags';

/** Each module's routes under /api, in the order they are mounted and documented. */
export const identityRoutes: RouteDefinition<any>[] = [
  ...loginRoutes,
  ...signonRoutes,
  ...identityProviderRoutes,
  ...ssoRoutes,
  ...samlRoutes,
  ...apiClientRoutes,
  ...credentialKeyRoutes,
];
export const tenancyRoutes: RouteDefinition<any>[] = [...configItemCheckRoutes, ...configItemAdminRoutes, ...configItemRoutes, ...importRoutes];
export const peopleRoutes: RouteDefinition<any>[] = [
  ...personRoutes,
  ...personLifecycleRoutes,
  ...privacyRoutes,
  ...organisationRoutes,
  ...organisationMemberRoutes,
  ...organisationManagerRoutes,
];
export const catalogueRoutes: RouteDefinition<any>[] = [
  ...competenceRoutes,
  ...catalogueTreeRoutes,
  ...roleRoutes,
  ...organisationalFunctionRoutes,
  ...personCompetenceRoutes,
  ...certificateRoutes,
  ...competenceLevelRoutes,
  ...reportRoutes,
  ...reportScheduleRoutes,
  ...changesRoutes,
  ...competenceAuthoringRoutes,
  ...catalogueStructureRoutes,
  ...roleAuthoringRoutes,
];
export const messagingRoutes: RouteDefinition<any>[] = [
  ...deliveryAdminRoutes,
  ...messageRoutes,
  ...forgotPasswordRoutes,
  ...webhookRoutes,
  ...notificationPreferenceRoutes,
  ...messageTemplateRoutes,
];
export const coursesRoutes: RouteDefinition<any>[] = [
  ...eventRoutes,
  ...eventAuthoringRoutes,
  ...personEventRoutes,
  ...orderRoutes,
  ...participantRoutes,
  ...locationRoutes,
  ...locationAuthoringRoutes,
  ...surveyAnswerRoutes,
  ...fileRoutes,
  ...calendarFeedRoutes,
];

/** Every route, in one place (paths are relative to /api); the kernel's security event log last. */
export const allRoutes: RouteDefinition<any>[] = [
  ...identityRoutes,
  ...tenancyRoutes,
  ...peopleRoutes,
  ...catalogueRoutes,
  ...messagingRoutes,
  ...coursesRoutes,
  ...auditLogRoutes,
];

/** What the app mounts and the OpenAPI document lists: the tenant API under /api, the operator API under /platform. */
export const routeGroups: readonly RouteGroup[] = [
  { base: '/api', tenant: true, routes: allRoutes },
  { base: '/platform', tenant: false, tag: 'platform', routes: operatorRoutes },
];

/** The operator API (outside any tenant, behind PLATFORM_ADMIN_TOKEN), mounted by app.ts at /platform. */
export { platformRoutes } from './tenancy/platform.routes';
/** Multipart upload and raw download of files, mounted before the routes (see app.ts). */
export { filesHttp } from './courses/files.http';
export { calendarFeedHttp } from './courses/calendar-feed.http';
/** The OAuth 2.0 token endpoint of API clients (POST /oauth/token on the tenant's host), mounted by app.ts. */
export { oauthTokenHttp } from './identity/oauth-token.http';
/** Endpoints outside the route groups whose format a standard fixes (RFC 6749, SCIM), for the OpenAPI document. */
export const openApiExtra: OpenApiExtra = {
  paths: { ...oauthTokenOpenApi, ...calendarFeedOpenApi, ...scimOpenApi.paths },
  tags: OPENAPI_TAGS,
  securitySchemes: { ...scimOpenApi.securitySchemes },
  schemas: { ...scimOpenApi.schemas },
};
/** A certificate's verification page (GET /verify/<code>) and the credential keys (GET /.well-known/jwks.json) on the tenant's host, mounted by app.ts. */
export { verifyHttp } from './catalogue/verify.http';
export { jwksHttp } from './identity/jwks.http';
/** SCIM 2.0 provisioning at /scim/v2 on the tenant's host, mounted by app.ts. */
export { scimHttp, SCIM_PATH } from './identity/scim.http';
/** The tenant admin page (outside /api), mounted by app.ts. */
export { adminPageRoutes } from './tenancy/admin/admin-page.routes';
