import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { sessionCookie } from '../accounts/session-cookie';
import { SignonService } from './signon.service';
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
      'forward_url is checked first (host in signon.forward_url_hosts, else 420), then the single-use hash ' +
      '(unknown, expired, used or issued to another user: 401 error object, no redirect). Success: 302 to forward_url.',
    input: z.object({
      user_name: p.string(200).min(1, 'must not be empty'),
      hash,
      forward_url: p.string(2000).min(1, 'must not be empty'),
    }),
    async handler(ctx, input) {
      const service = ctx.resolve(SignonService);
      const target = service.checkForwardUrl(input.forward_url);
      const sessionId = await service.signOn(input.user_name, input.hash);
      return { redirect: target, cookies: [sessionCookie(ctx, sessionId)] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/validate_auth_token',
    access: policies.anyone,
    resource: 'validate_auth_token',
    summary: 'Check a sign-on hash for a person id without redirect (third-party learning systems)',
    description: 'Answers {valid, message}; an invalid token is a 401 error object. The check uses the hash up (single use).',
    input: z.object({ user_id: p.id(), hash }),
    async handler(ctx, input) {
      await ctx.resolve(SignonService).checkAuthToken(input.user_id, input.hash);
      return { body: { valid: true, message: `the token is valid for user_id ${input.user_id}` } };
    },
  }),
];
