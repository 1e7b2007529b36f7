import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { corsDecision, MAX_BUILT_TOKEN_SECONDS } from '../../identity';
import { CheckSwtTokenFlow } from '../../flows/identity/check-swt-token';
import { policies } from '../../people';

const SwtCheckView = z
  .object({
    check: z.enum(['format', 'secret', 'signature', 'issuer', 'expiry', 'lifetime', 'user']),
    ok: z.boolean(),
    detail: z.string().describe('why it passed or failed; never key material'),
  })
  .describe('One step of the SWT verification, in the order the SWT sign-on runs them')
  .meta({ id: 'SwtCheck' });

const CorsCheckView = z
  .object({
    origin: z.string(),
    allowed: z.boolean().describe('whether a page at this origin may call the API with credentials'),
    reason: z.string(),
  })
  .meta({ id: 'CorsCheck' });

/** The admin page's integration checkers; each answers with the production code's own decision. */
export const configItemCheckRoutes = [
  defineRoute({
    method: 'post',
    path: '/configitems/api.oauth.secret/check',
    access: policies.superuser('check SWT tokens'),
    resource: 'checks',
    // a built token is a working credential: never kept in the Idempotency-Key store
    secretInAnswer: 'send the check again with a new Idempotency-Key (or none) to build a new token',
    summary: 'Explain why the tenant accepts or refuses an SWT token, check by check (superusers)',
    description:
      'Send token, or user_name (with optional issuer and expires_in_seconds, default 300) to have one built and signed with the stored api.oauth.secret. ' +
      'The answer lists each check {check, ok, detail} in the order SWT sign-on runs them: format, signature (current and previous secret), issuer, expiry, ' +
      `lifetime, user (the token names an existing user). The secret is never shown. A built token is returned as token: it is a working credential for ` +
      `that user, so its lifetime is capped at ${MAX_BUILT_TOKEN_SECONDS} seconds and it is only handed to superusers, who could set the secret anyway.`,
    input: z.object({
      token: p.string(4096).min(1).optional(),
      user_name: p.string(200).min(1).optional(),
      issuer: p.string(500).min(1).optional(),
      expires_in_seconds: p
        .int()
        .pipe(z.number().min(1).max(MAX_BUILT_TOKEN_SECONDS, `must be at most ${MAX_BUILT_TOKEN_SECONDS}`))
        .optional(),
    }),
    output: SwtCheckView,
    async handler(ctx, input) {
      const { checks, token } = await ctx.resolve(CheckSwtTokenFlow).check(input);
      const ok = checks.every((c) => c.ok);
      return { body: { valid: true, message: ok ? 'the token would be accepted' : 'the token would be refused', checks, ...(token ? { token } : {}) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configitems/cors.origins/check',
    access: policies.superuser('check CORS origins'),
    resource: 'cors_check',
    summary: 'Whether a browser page at an origin may call this API with credentials, and why not (superusers)',
    description: "Uses the CORS middleware's own decision on the tenant's current cors.origins.",
    input: z.object({ origin: p.string(500).min(1) }),
    output: CorsCheckView,
    async handler(ctx, input) {
      const decision = corsDecision(ctx.tenant.config.get('cors.origins'), input.origin);
      return { items: [{ origin: input.origin, ...decision }], message: decision.allowed ? 'allowed' : 'refused' };
    },
  }),
];
