import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { policies } from '../../people';
import { CredentialKeysAdmin, presentCredentialKey } from '../../identity';

const CredentialKeyOut = z
  .object({
    kid: z.string().describe('the key id (RFC 7638 thumbprint), the kid of the credentials it signs'),
    public_jwk: z.record(z.string(), z.unknown()).describe('the public key (OKP, Ed25519) as in /.well-known/jwks.json'),
    active: z.boolean().describe('signs new credentials'),
    published: z.boolean().describe('listed in GET /.well-known/jwks.json now'),
    published_until: z
      .string()
      .nullable()
      .describe(
        'ISO 8601: a retired key stays published until the last credential it signed ends; null: for good (active, or it signed a credential without an end)',
      ),
    created_at: z.string(),
    retired_at: z.string().nullable(),
  })
  .describe("One of the tenant's Ed25519 keys for verifiable credentials (never its private half)")
  .meta({ id: 'CredentialKey' });

/** The tenant's credential signing keys (issue 38; superusers only). */
export const credentialKeyRoutes = [
  defineRoute({
    method: 'get',
    path: '/credentialkeys',
    access: policies.superuser('see credential keys'),
    resource: 'credentialkeys',
    summary: "The tenant's Ed25519 keys for verifiable credentials, newest first (superusers)",
    description: 'The first key is made when the first credential is requested (GET /api/personcompetences/[competence_id]/credential).',
    input: z.object({}),
    output: CredentialKeyOut,
    async handler(ctx) {
      const now = new Date();
      return { items: (await ctx.resolve(CredentialKeysAdmin).list()).map((r) => presentCredentialKey(r, now)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/credentialkeys/rotate',
    access: policies.superuser('rotate credential keys'),
    resource: 'credentialkeys',
    summary: 'Rotate the credential signing key: a new key signs from now on (superusers)',
    description:
      'The key in use is retired; it stays in GET /.well-known/jwks.json until the last credential it signed ends (for good if one had no end), ' +
      'so credentials already handed out keep verifying. Security event credential_key.rotated. An Idempotency-Key repeat replays the first answer.',
    input: z.object({}),
    output: CredentialKeyOut,
    created: true,
    async handler(ctx) {
      const row = await ctx.resolve(CredentialKeysAdmin).rotate(ctx.user);
      return { items: [presentCredentialKey(row, new Date())], message: 'credential key rotated' };
    },
  }),
];
