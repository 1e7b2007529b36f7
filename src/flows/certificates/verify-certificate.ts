import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { TenantClock } from '../../platform/time/tenant-clock';
import { CertificatesRepository, certificateStatus, type CertificateStatus } from '../../catalogue';
import { PersonDirectory } from '../../people';
import { fullName } from './certificate-issue';

/** What GET /verify/[code] tells anyone who holds the code. */
export interface Verification {
  status: CertificateStatus;
  /** The holder's name; null once the person was erased. */
  name: string | null;
  competence: string;
  date: string | null;
  valid_until: string | null;
  issuer: string;
  issued_at: string;
  /** Why it is revoked: registration_removed or person_erased; null otherwise. */
  revoked_reason: string | null;
}

/**
 * GET /verify/[code] (issue 38): the certificate by its code (catalogue), its status computed now
 * in the tenant's calendar, the holder's name (people), the issuer (the tenant's name). No login.
 */
@injectable()
export class VerifyCertificateFlow {
  constructor(
    @inject(CertificatesRepository) private readonly certificates: CertificatesRepository,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  /** undefined for an unknown code. */
  async verify(code: string): Promise<Verification | undefined> {
    const c = await this.certificates.byCode(code);
    if (!c) return undefined;
    const status = certificateStatus(c, this.clock.today());
    const erased = c.revoked_reason === 'person_erased';
    const person = erased ? undefined : await this.persons.find({ id: c.person_id }, ['user_name', 'firstname', 'lastname']);
    return {
      status,
      name: person ? fullName(person) : null,
      competence: c.title,
      date: c.date,
      valid_until: c.valid_until,
      issuer: this.tenant.name,
      issued_at: new Date(c.issued_at).toISOString(),
      revoked_reason: status !== 'revoked' ? null : erased ? 'person_erased' : (c.revoked_reason ?? 'registration_removed'),
    };
  }
}
