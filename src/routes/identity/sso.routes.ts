import { z } from 'zod';
import { defineRoute, type RouteContext } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { policies } from '../../people';
import { SsoSignInFlow } from '../../flows/identity/sso-sign-in';
import { sessionCookie } from './session-cookie';

const id = p.string(64).min(1);

/** The host the browser used: the redirect URI, entity id and ACS URL are https on it (see src/identity/providers/README.md). */
export const browserHost = (ctx: RouteContext): string => String(ctx.headers.host ?? '').toLowerCase();

/**
 * Where to go after the sign-in: a path on this host ("/..."), or an http(s) URL on the tenant's
 * own hosts or on signon.forward_url_hosts; anything else is 420 before the browser leaves.
 */
export function checkForwardUrl(ctx: RouteContext, forwardUrl: string | undefined): string {
  if (!forwardUrl) return '/';
  if (forwardUrl.startsWith('/') && !forwardUrl.startsWith('//') && !forwardUrl.startsWith('/\\')) return forwardUrl;
  let url: URL;
  try {
    url = new URL(forwardUrl);
  } catch {
    throw ApiError.malformed('forward_url', 'must be a path on this host or an absolute http or https URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    throw ApiError.malformed('forward_url', 'must be an http or https URL without user name or password');
  }
  const host = url.hostname.toLowerCase();
  const own = ctx.tenant.hosts.map((h) => h.toLowerCase().split(':')[0]);
  const allowed = ctx.tenant.config.get('signon.forward_url_hosts').map((h: string) => h.toLowerCase());
  if (!own.includes(host) && !allowed.includes(host)) {
    throw ApiError.malformed('forward_url', `host ${url.hostname} is neither this tenant's host nor in signon.forward_url_hosts`);
  }
  return url.href;
}

/** OIDC and SAML sign-in through an identity provider of the tenant (issue 37); the SAML ACS and metadata: saml.routes.ts. */
export const ssoRoutes = [
  defineRoute({
    method: 'get',
    path: '/sso/:identityprovider_id/login',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'sso',
    errors: [401, 503],
    summary:
      'Start a sign-in at the identity provider: 302 to its authorization endpoint (OIDC code flow, PKCE S256) or its SSO URL with a SAML AuthnRequest (HTTP-Redirect binding)',
    description:
      "forward_url (optional, default /): a path on this host, or a URL on the tenant's host or on signon.forward_url_hosts (else 420). " +
      "An unknown identity provider id (or another tenant's) is 401. OIDC: the state, nonce and PKCE verifier stay on the server for 10 minutes, for one use. " +
      'SAML: the AuthnRequest id (and forward_url) stays on the server for 10 minutes; the response must answer it (InResponseTo), once.',
    redirect: 'to the identity provider',
    input: z.object({ identityprovider_id: id, forward_url: p.string(2000).optional() }),
    async handler(ctx, i) {
      const forwardUrl = checkForwardUrl(ctx, i.forward_url);
      return { redirect: await ctx.resolve(SsoSignInFlow).start(i.identityprovider_id, browserHost(ctx), forwardUrl) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/sso/:identityprovider_id/callback',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'sso',
    errors: [401, 503],
    summary: 'Return from the OpenID provider: checks its answer, sets the tg-visit session and redirects to forward_url',
    redirect: 'to forward_url, with the tg-visit session cookie',
    description:
      'openid-client checks the ID token (signature, issuer, audience, expiry, nonce) and the PKCE verifier; the state is used up on the first try. ' +
      'The person is the one whose match_field equals the match_claim claim; with jit=1 an unknown person is created (person.created). ' +
      'Every refusal (unknown or replayed state, bad token, unknown or deactivated person, unknown provider) is 401 and opens no session. ' +
      'Sign-ins are in the security event log (login.sso, login.failed).',
    input: z
      .object({
        identityprovider_id: id,
        state: p.string(200).optional(),
        code: p.string(4000).optional(),
        iss: p.string(2000).optional(),
        error: p.string(200).optional(),
        error_description: p.string(2000).optional(),
      })
      .passthrough(),
    async handler(ctx, i) {
      const { identityprovider_id, ...rest } = i;
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(rest)) if (typeof v === 'string') params[k] = v;
      const r = await ctx.resolve(SsoSignInFlow).finishOidc(identityprovider_id, browserHost(ctx), params, ctx.ip, ctx.log);
      return { redirect: r.forwardUrl, cookies: [sessionCookie(ctx, r.sessionId)] };
    },
  }),
];
