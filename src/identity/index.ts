/**
 * The identity module: login, logout and sessions, the login limits, sign-on hashes and SWT
 * (validate, validate_auth_token, the SWT auth scheme), the principal loader, CORS and the CSRF
 * guard. Imports the people face.
 */
import type { AppModule } from '../platform/module';
import { AUTH_SCHEMES } from '../platform/auth/auth-scheme';
import { SessionAuthScheme } from './accounts/session-auth-scheme';
import { SwtAuthScheme } from './sso/swt-auth-scheme';

export const identityModule: AppModule = {
  name: 'identity',
  register(c) {
    // An explicit Authorization: SWT header decides before any cookie the browser may also send.
    c.register(AUTH_SCHEMES, { useClass: SwtAuthScheme });
    c.register(AUTH_SCHEMES, { useClass: SessionAuthScheme });
  },
};

/** Per-tenant CORS (before authentication) and the cross-site write check, mounted by app.ts. */
export { tenantCors, corsDecision } from './cors/cors-middleware';
export { csrfGuard } from './cors/csrf-guard';
export { SwtChecker, MAX_BUILT_TOKEN_SECONDS } from './sso/swt-checker';
/** For its routes (src/routes/identity): password login and logout, sign-on hashes, the session cookie. */
export { LoginService } from './accounts/login.service';
export { SignonService } from './sso/signon.service';
export { SESSION_COOKIE } from './accounts/session-auth-scheme';
export { SessionStore } from './accounts/session-store';
/** For flows: checking old_password counts against the login limits (src/flows/persons). */
export { LoginThrottle } from './accounts/login-throttle';
