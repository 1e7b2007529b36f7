import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { LoginService } from '../../identity';
import { LoginFlow } from '../../flows/identity/login';
import { clearSessionCookie, sessionCookie } from './session-cookie';
import { policies } from '../../people';

export const loginRoutes = [
  defineRoute({
    method: 'post',
    path: '/login',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'login',
    errors: [429, 503],
    summary: 'Log in with user name and password; sets the tg-visit session cookie',
    description:
      'Returns one Login: session_id (also set as cookie tg-visit), hash (single-use sign-on hash for GET /api/validate, valid 30 s), ' +
      'must_change_password, and forward_url relayed. Wrong password and unknown user get the same 401. ' +
      'Throttling (ASVS 2.2.1), per tenant and counted before the password is checked: after 5 failed attempts for one user_name ' +
      'from one client address within 15 minutes, or 20 for one user_name from any address within an hour, the login answers ' +
      'errorcode 429 (HTTP 429) with a Retry-After header (seconds) until that window has passed, even with the right password. ' +
      'Unknown user names are throttled the same way. A successful login clears the counter of its user_name and address. ' +
      'The client address is the TCP peer, or the X-Forwarded-For entry that TRUST_PROXY (hop count or proxy list) selects. ' +
      'User names are compared lower-cased. Logins, refusals and throttling are recorded in the security event log (GET /api/auditlog). ' +
      'Redis unavailable: 503.',
    input: z.object({
      user_name: p.string(200).min(1, 'must not be empty'),
      password: z.string().min(1, 'must not be empty').max(1000),
      login: p.int().refine((v) => v === 1, 'must be 1'),
      forward_url: p.string(2000).optional(),
    }),
    output: z
      .object({
        session_id: z.string(),
        hash: z.string(),
        person_id: z.number().int(),
        user_name: z.string(),
        must_change_password: z.boolean(),
        forward_url: z.string().optional(),
      })
      .meta({ id: 'LoginSession' }),
    async handler(ctx, input) {
      const r = await ctx.resolve(LoginFlow).login(input.user_name, input.password, ctx.ip);
      return {
        message: r.mustChangePassword ? 'logged in; the password must be changed before anything else' : 'logged in',
        items: [
          {
            session_id: r.sessionId,
            hash: r.hash,
            person_id: r.personId,
            user_name: r.userName,
            must_change_password: r.mustChangePassword,
            ...(input.forward_url !== undefined ? { forward_url: input.forward_url } : {}),
          },
        ],
        cookies: [sessionCookie(ctx, r.sessionId)],
      };
    },
  }),
  logoutRoute('get'),
  // The admin page and other browser clients log out with POST (a GET may be prefetched).
  logoutRoute('post'),
];

function logoutRoute(method: 'get' | 'post') {
  return defineRoute({
    method,
    path: '/logout',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'logout',
    summary: 'End the session of the tg-visit cookie; relays forward_url',
    description: 'GET and POST do the same: the session ends on the server and the cookie is cleared.',
    input: z.object({ forward_url: p.string(2000).optional() }),
    output: z.object({ forward_url: z.string().optional() }).meta({ id: 'Logout' }),
    async handler(ctx, input) {
      await ctx.resolve(LoginService).logout(ctx.principal, ctx.ip);
      return {
        message: ctx.principal ? 'logged out' : 'was not logged in',
        items: [{ ...(input.forward_url !== undefined ? { forward_url: input.forward_url } : {}) }],
        cookies: [clearSessionCookie(ctx)],
      };
    },
  });
}
