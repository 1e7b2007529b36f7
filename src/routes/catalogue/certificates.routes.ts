import { z } from 'zod';
import { defineRoute, type RouteContext } from '../../platform/http/define-route';
import { p } from '../../platform/http/param-types';
import { policies } from '../../people';
import { CertificateIssueFlow, fullName } from '../../flows/certificates/certificate-issue';
import { certificatePdf } from '../../flows/certificates/certificate-pdf';
import { CredentialIssueFlow, VC_JWT_TYPE, verificationUrl } from '../../flows/certificates/credential-issue';

/** The tenant's host as the caller used it; TLS ends at the proxy, so the public address is https (as the SSO redirect_uri). */
export const publicOrigin = (ctx: Pick<RouteContext, 'headers'>) => `https://${String(ctx.headers.host ?? '').toLowerCase()}`;

const WHEN =
  "Only for the person's current registration of a course, module, e-course or group registered with show_course_diploma, passed and not expired now " +
  "(tenant time zone): 404 when the competence is unknown (or another tenant's) or the person has no registration of it, 409 when the registration has no diploma " +
  "(show_course_diploma not set, or a type without diplomas) or is not held now (expired, not passed). user_name other than self: the person's manager or a superuser (else 403). " +
  'The verification code (32 URL-safe characters, 192 random bits) is issued on the first download of the registration (security event certificate.issued) and stays the same; ' +
  'anyone with it sees GET /verify/<code> on this host: valid, expired or revoked (registration removed, person erased), as a page or JSON (src/flows/certificates/README.md).';

const input = z.object({ competence_id: p.id(), user_name: p.string(200).optional() });

export const certificateRoutes = [
  defineRoute({
    method: 'get',
    path: '/personcompetences/:competence_id/certificate',
    // a PDF with a QR code is rendered per call
    cost: 5,
    access: policies.selfOrManager('user_name', 'download certificates of {person}'),
    resource: 'personcompetences',
    summary: "A certificate (PDF) of a person's passed registration, with a verification code, URL and QR code",
    description: `The PDF holds the person's name, the competence, date, valid until, the tenant's name, the verification code and URL and the QR code of the URL. ${WHEN}`,
    input,
    errors: [409],
    answer: { description: 'the certificate (attachment certificate-<competence_id>.pdf)', content: { 'application/pdf': 'binary' } },
    async handler(ctx, input) {
      const a = await ctx.resolve(CertificateIssueFlow).achievement(ctx.user, ctx.target, input.competence_id);
      const pdf = await certificatePdf({
        name: fullName(a.person),
        competence: a.competence.title,
        date: a.registration.date,
        validUntil: a.registration.valid_until,
        issuer: a.issuer,
        code: a.certificate.code,
        url: verificationUrl(publicOrigin(ctx), a.certificate.code),
      });
      return {
        contentType: 'application/pdf',
        headers: { 'Content-Disposition': `attachment; filename="certificate-${input.competence_id}.pdf"`, 'Cache-Control': 'private, no-store' },
        stream: async (out) => void out.end(pdf),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/personcompetences/:competence_id/credential',
    access: policies.selfOrManager('user_name', 'get credentials of {person}'),
    resource: 'personcompetences',
    summary: "The same achievement as an Open Badges 3.0 verifiable credential, a JWT signed with the tenant's Ed25519 key (application/vc+jwt)",
    description:
      'W3C Verifiable Credentials Data Model 2.0, secured as a JWT (VC-JOSE-COSE): header alg EdDSA, kid, typ vc+jwt; the claims are the credential ' +
      '(@context, id = the verification URL, type VerifiableCredential + OpenBadgeCredential, issuer {id: https://<host>/, type Profile, name: the tenant}, ' +
      'validFrom = start of the registration date, validUntil = end of valid_until (tenant time zone; none without one), credentialSubject {type AchievementSubject, ' +
      "identifier: the holder's name, achievement {id, type Achievement, name, description, criteria}}) plus iss, jti, nbf, exp, iat mirroring it. " +
      'Verify with the keys at GET /.well-known/jwks.json on this host; a rotated key stays there while a credential it signed is valid. ' +
      `The tenant's key is made on first use (security event credential_key.created). ${WHEN}`,
    input,
    errors: [409],
    answer: { description: 'the credential as a compact JWS', content: { [VC_JWT_TYPE]: 'binary' } },
    async handler(ctx, input) {
      const a = await ctx.resolve(CertificateIssueFlow).achievement(ctx.user, ctx.target, input.competence_id);
      const jwt = await ctx.resolve(CredentialIssueFlow).sign(ctx.user, a, publicOrigin(ctx));
      return { contentType: VC_JWT_TYPE, headers: { 'Cache-Control': 'private, no-store' }, stream: async (out) => void out.end(jwt) };
    },
  }),
];
