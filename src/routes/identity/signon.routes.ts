import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { SignonService } from '../../identity';
import { SignOnWithHashFlow } from '../../flows/identity/sign-on-with-hash';
import { sessionCookie } from './session-cookie';
import { policies } from '../../people';

const hash = p.string(200).min(1, 'must not be empty');

export const signonRoutes = [
  defineRoute({
    method: 'get',
    path: '/validate',
    access: policies.anyone,
    // Signing on replaces whatever session the browser had, including one stuck at 418.
    duringPasswordChange: true,
    resource: 'validate',
    summary: 'Complete sign-on with the hash from login: sets tg-visit and redirects to forward_url',
    description:
      'A missing parameter is a 419. forward_url is checked first: an absolute http(s) URL without user info whose host name is in ' +
      'signon.forward_url_hosts (any port), else 420 and the hash stays usable. Then the single-use hash (valid 30 s) is used up whatever the outcome ' +
      '(unknown, expired, used or issued to another user: 401 error object, no redirect). Success sets tg-visit exactly like login: 302 to forward_url.',
    input: z.object({
      user_name: p.string(200).min(1, 'must not be empty'),
      hash,
      forward_url: p.string(2000).min(1, 'must not be empty'),
    }),
    async handler(ctx, input) {
      const target = ctx.resolve(SignonService).checkForwardUrl(input.forward_url);
      const sessionId = await ctx.resolve(SignOnWithHashFlow).signOn(input.user_name, input.hash);
      return { redirect: target, cookies: [sessionCookie(ctx, sessionId)] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/validate_auth_token',
    access: policies.anyone,
    resource: 'validate_auth_token',
    summary: 'Check a sign-on hash for a person id without redirect (third-party learning systems)',
    description:
      'user_id is the person id (person_id of the login answer). Answers {valid, message}; an invalid token is a 401 error object. ' +
      'The check uses the hash up (single use), so a replayed URL fails; a client that wants both this check and GET /api/validate logs in twice.',
    input: z.object({ user_id: p.id(), hash }),
    async handler(ctx, input) {
      await ctx.resolve(SignOnWithHashFlow).checkAuthToken(input.user_id, input.hash);
      return { body: { valid: true, message: `the token is valid for user_id ${input.user_id}` } };
    },
  }),
];
