import { inject, injectable } from 'tsyringe';
import { SignJWT } from 'jose';
import type { Principal } from '../../platform/auth/principal';
import { AuditTrail } from '../../platform/audit';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { TenantClock, endOfDayIn, startOfDayIn } from '../../platform/time/tenant-clock';
import { CredentialKeys } from '../../identity';
import { fullName, type Achievement } from './certificate-issue';

export const OB3_CONTEXT = ['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'];
export const VC_JWT_TYPE = 'application/vc+jwt';

/** The verification page of a certificate on the tenant's host (`origin`: https://<host>). */
export const verificationUrl = (origin: string, code: string) => `${origin}/verify/${code}`;

/**
 * GET /api/personcompetences/[competence_id]/credential (issue 38): the achievement as an Open Badges
 * 3.0 credential (W3C VC Data Model 2.0) secured as a JWT (VC-JOSE-COSE, typ vc+jwt), signed with the
 * tenant's active Ed25519 key (identity's CredentialKeys, made on first use, audited). The key is
 * told the credential's end before the JWT leaves, so a rotation keeps it published until then.
 */
@injectable()
export class CredentialIssueFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(CredentialKeys) private readonly keys: CredentialKeys,
    @inject(TenantClock) private readonly clock: TenantClock,
  ) {}

  /** The unsigned credential. validFrom: the registration's date begins; validUntil: its valid_until ends (tenant time zone). */
  credential(a: Achievement, origin: string): { vc: Record<string, unknown> & { id: string }; validFrom: Date; validUntil: Date | null } {
    const zone = this.clock.zone;
    const validFrom = startOfDayIn(zone, a.registration.date ?? this.clock.dayOf(new Date(a.certificate.issued_at)));
    const validUntil = a.registration.valid_until ? new Date(endOfDayIn(zone, a.registration.valid_until).getTime() - 1000) : null;
    const c = a.competence;
    const id = verificationUrl(origin, a.certificate.code);
    const vc = {
      '@context': OB3_CONTEXT,
      id,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      name: c.title,
      issuer: { id: `${origin}/`, type: ['Profile'], name: a.issuer, url: `${origin}/` },
      validFrom: iso(validFrom),
      ...(validUntil ? { validUntil: iso(validUntil) } : {}),
      credentialSubject: {
        type: ['AchievementSubject'],
        identifier: [{ type: 'IdentityObject', identityHash: fullName(a.person), identityType: 'name', hashed: false }],
        achievement: {
          id: `${origin}/api/competences/${c.id}`,
          type: ['Achievement'],
          achievementType: 'Certificate',
          name: c.title,
          description: c.description?.trim() || c.title,
          criteria: { narrative: `Passed "${c.title}", registered by ${a.issuer}.` },
        },
      },
      evidence: [{ id, type: ['Evidence'], name: 'Verification page of the certificate' }],
    };
    return { vc, validFrom, validUntil };
  }

  /** The credential as a compact JWS (application/vc+jwt). */
  async sign(user: Principal, a: Achievement, origin: string): Promise<string> {
    const { vc, validFrom, validUntil } = this.credential(a, origin);
    const row = await this.uow.run(async (tx) => {
      const keys = tx.get(CredentialKeys);
      const k = await keys.ensureActive(user.personId);
      if (k.created) {
        await tx
          .get(AuditTrail)
          .record({ type: 'credential_key.created', actor: user.userName, subject: k.row.kid, details: { replaced: k.replaced ?? null } });
      }
      await keys.noteSigned(k.row.kid, validUntil);
      return k.row;
    });
    const { kid, key } = await this.keys.signingKey(row);
    // JWT claims mirror the credential (iss = issuer.id, jti = id, nbf/exp = validFrom/validUntil), so any JOSE library checks the dates.
    return new SignJWT({ ...vc, iss: `${origin}/`, jti: vc.id, nbf: seconds(validFrom), ...(validUntil ? { exp: seconds(validUntil) } : {}) })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'vc+jwt', cty: 'vc' })
      .setIssuedAt()
      .sign(key);
  }
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
