import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { policies } from '../../people';
import { SsoSignInFlow } from '../../flows/identity/sso-sign-in';
import { sessionCookie } from './session-cookie';
import { browserHost } from './sso.routes';

const id = p.string(64).min(1);
/** A signed response with a few attributes is 5-15 KB of base64; the body parser allows 1 MB. */
const MAX_RESPONSE_CHARS = 500_000;

const AcsForm = z.object({
  SAMLResponse: z.string().min(1).max(MAX_RESPONSE_CHARS).describe("base64 of the samlp:Response, as the IdP's auto-submitting form sends it"),
  RelayState: z.string().max(2000).optional().describe('ignored: forward_url is kept on the server with the request id'),
});

/** The SAML service provider's endpoints of a provider (issue 37); GET /api/sso/[id]/login starts the sign-in (sso.routes.ts). */
export const samlRoutes = [
  defineRoute({
    method: 'post',
    path: '/sso/:identityprovider_id/acs',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'sso',
    errors: [401, 503],
    summary: 'SAML Assertion Consumer Service (HTTP-POST binding): checks the response, sets the tg-visit session and redirects to forward_url',
    description:
      "The IdP's page posts the form here from its own site (a cross-site top-level POST): the cross-site check of session-cookie writes does not apply to this path " +
      '(the signed, one-use response is the credential; a session cookie the browser may send along is not used). node-saml verifies the XML signature ' +
      "(the response's or the assertion's, with the certificates from the IdP metadata; unsigned: 401), the audience (our entity id), NotBefore/NotOnOrAfter " +
      "(60 s clock skew) and InResponseTo (a pending AuthnRequest of this provider on this tenant, used up by the first try); then the issuer (the IdP's entity id), " +
      'Destination and Recipient (this ACS URL) and that the assertion id was not used before. The person is the one whose match_field equals the match_claim ' +
      'attribute (or the NameID for match_claim=nameid); with jit=1 an unknown person is created (person.created). Every refusal is 401 and opens no session. ' +
      'IdP-initiated sign-in (a response without InResponseTo) is refused. Sign-ins are in the security event log (login.sso, login.failed).',
    body: { description: "The IdP's auto-submitting form", content: { 'application/x-www-form-urlencoded': AcsForm } },
    redirect: 'to forward_url, with the tg-visit session cookie',
    input: z.object({ identityprovider_id: id }),
    async handler(ctx, i) {
      const form = AcsForm.safeParse(ctx.body.parsed ?? {});
      if (!form.success) {
        const raw = (ctx.body.parsed ?? {}) as Record<string, unknown>;
        throw raw.SAMLResponse === undefined
          ? ApiError.missing('SAMLResponse')
          : ApiError.malformed('SAMLResponse', 'must be the base64 SAML response (form field of the HTTP-POST binding)');
      }
      const r = await ctx.resolve(SsoSignInFlow).finishSaml(i.identityprovider_id, browserHost(ctx), form.data.SAMLResponse, ctx.ip, ctx.log);
      return { redirect: r.forwardUrl, cookies: [sessionCookie(ctx, r.sessionId)] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/sso/:identityprovider_id/metadata',
    access: policies.anyone,
    duringPasswordChange: true,
    resource: 'sso',
    errors: [401],
    summary: 'SAML service provider metadata of this provider: our entity id (this URL), the ACS URL and the NameID format, to give to the IdP',
    description:
      'No login needed (IdPs read it by URL). The entity id is https://<tenant host>/api/sso/<id>/metadata, the ACS URL https://<tenant host>/api/sso/<id>/acs; ' +
      "AuthnRequests are not signed, signed assertions are asked for (WantAssertionsSigned). An unknown provider id, another tenant's or an OIDC one: 401.",
    answer: { description: 'SAML 2.0 metadata (md:EntityDescriptor with an SPSSODescriptor)', content: { 'application/samlmetadata+xml': 'binary' } },
    input: z.object({ identityprovider_id: id }),
    async handler(ctx, i) {
      const xml = await ctx.resolve(SsoSignInFlow).samlMetadata(i.identityprovider_id, browserHost(ctx));
      return { stream: async (out) => void out.write(xml), contentType: 'application/samlmetadata+xml; charset=utf-8' };
    },
  }),
];
