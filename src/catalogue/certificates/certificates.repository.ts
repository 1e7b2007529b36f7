import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** 24 random bytes (192 bits) as base64url: 32 characters, URL-safe, unguessable. */
export const newCertificateCode = (): string => randomBytes(24).toString('base64url');

/** A syntactically possible code (anything else is unknown without a query). */
export const CERTIFICATE_CODE = /^[A-Za-z0-9_-]{32}$/;

export type CertificateStatus = 'valid' | 'expired' | 'revoked';

export interface CertificateRow {
  id: number;
  code: string;
  person_competence_id: number;
  person_id: number;
  competence_id: number;
  issued_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

/** A certificate with what it attests: its registration's dates and whether it was removed, the competence's title. */
export interface CertificateFacts extends CertificateRow {
  date: string | null;
  valid_until: string | null;
  registration_deleted: boolean;
  title: string;
  description: string | null;
}

/**
 * The status a verifier sees, computed on every read: revoked when the registration was removed
 * (DELETE /api/personcompetences) or the person erased; else expired after valid_until (the tenant's
 * calendar day `today`), else valid. A registration superseded by a later one stays as printed.
 */
export function certificateStatus(c: Pick<CertificateFacts, 'revoked_at' | 'registration_deleted' | 'valid_until'>, today: string): CertificateStatus {
  if (c.revoked_at || c.registration_deleted) return 'revoked';
  if (c.valid_until !== null && c.valid_until < today) return 'expired';
  return 'valid';
}

/** Certificates of registrations (issue 38): a verification code per registration, issued once. */
@injectable()
export class CertificatesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  /**
   * The registration's certificate, made on the first call (`created`); later calls, also at the
   * same moment, find the same row. Run on the transaction that audits the issue (`tx.get`).
   */
  async issue(reg: { id: number; person_id: number; competence_id: number }, issuedBy: number | null): Promise<{ row: CertificateRow; created: boolean }> {
    const inserted = await this.db
      .table('certificates')
      .insert({ code: newCertificateCode(), person_competence_id: reg.id, person_id: reg.person_id, competence_id: reg.competence_id, issued_by: issuedBy })
      .onConflict('person_competence_id')
      .ignore()
      .returning('*');
    if (inserted.length) return { row: inserted[0], created: true };
    return { row: await this.db.table('certificates').where('person_competence_id', reg.id).first(), created: false };
  }

  /** The certificate already issued for a registration, if any. */
  ofRegistration(personCompetenceId: number): Promise<CertificateRow | undefined> {
    return this.db.table('certificates').where('person_competence_id', personCompetenceId).first();
  }

  /** A certificate by its code, with its registration (deleted ones too) and competence. */
  async byCode(code: string): Promise<CertificateFacts | undefined> {
    if (!CERTIFICATE_CODE.test(code)) return undefined;
    const db = this.db;
    const row = await db
      .table('certificates as ce')
      .join('person_competences as pc', 'pc.id', 'ce.person_competence_id')
      .join('competences as c', 'c.id', 'ce.competence_id')
      .where('ce.code', code)
      .first(
        'ce.*',
        db.raw('pc.date::text as date'),
        db.raw('pc.valid_until::text as valid_until'),
        db.raw('(pc.deleted_at is not null) as registration_deleted'),
        'c.title',
        'c.description',
      );
    return row;
  }

  /** The erasure's part: every certificate of the person is revoked (a verifier then sees revoked, without a name). */
  revokeAllOf(personId: number, reason: string): Promise<number> {
    return this.db.table('certificates').where('person_id', personId).whereNull('revoked_at').update({ revoked_at: this.db.fn.now(), revoked_reason: reason });
  }
}
