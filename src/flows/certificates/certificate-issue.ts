import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { CertificatesRepository, CompetenceStates, type CertificateRow, type CompetenceRow } from '../../catalogue';
import type { TargetPerson } from '../../people';

/** Competence types whose registrations carry show_course_diploma (the spec's course, module course, e-course, and groups). */
const DIPLOMA_TYPES = ['course', 'group', 'module', 'ecourse'];

/** Everything a certificate or a credential of a person's achievement states. */
export interface Achievement {
  person: Pick<TargetPerson, 'id' | 'user_name' | 'firstname' | 'lastname'>;
  competence: CompetenceRow;
  registration: { id: number; date: string | null; valid_until: string | null };
  certificate: CertificateRow;
  issuer: string;
}

/** "Kari Nordmann", or the user name when the person has no name on record. */
export const fullName = (p: Pick<TargetPerson, 'user_name' | 'firstname' | 'lastname'>): string =>
  [p.firstname, p.lastname].filter((s) => s && s.trim()).join(' ') || p.user_name;

/**
 * GET /api/personcompetences/[competence_id]/certificate and /credential (issue 38): the person's
 * current registration of the competence (catalogue's CompetenceStates) must be held now and allow
 * a diploma (show_course_diploma); its certificate (the verification code) is issued on the first
 * call, audited as certificate.issued, and the same on every later one. The person comes checked
 * by the route's access rule (people).
 */
@injectable()
export class CertificateIssueFlow {
  constructor(
    @inject(CompetenceStates) private readonly states: CompetenceStates,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  async achievement(user: Principal, person: TargetPerson, competenceId: number): Promise<Achievement> {
    const [state] = await this.states.evaluate(person.id, [competenceId]);
    if (!state) throw ApiError.notFound(`competence ${competenceId}`);
    const reg = state.registration;
    const title = state.competence.title;
    if (!reg) throw ApiError.notFound(`registration of "${title}" for ${person.user_name}`);
    if (!DIPLOMA_TYPES.includes(state.competence.type) || reg.show_course_diploma !== true) {
      throw new ApiError(409, `the registration of "${title}" for ${person.user_name} has no diploma (show_course_diploma is not set)`);
    }
    if (!state.held) throw new ApiError(409, `the registration of "${title}" for ${person.user_name} is not passed now (${state.reason})`);
    const certificate = await this.uow.run(async (tx) => {
      const issued = await tx.get(CertificatesRepository).issue(reg, user.personId);
      if (issued.created) {
        await tx.get(AuditTrail).record({
          type: 'certificate.issued',
          actor: user.userName,
          subject: person.user_name,
          details: { competence_id: competenceId, personcompetence_id: reg.id, certificate_id: issued.row.id },
        });
      }
      return issued.row;
    });
    return {
      person,
      competence: state.competence,
      registration: { id: reg.id, date: reg.date, valid_until: reg.valid_until },
      certificate,
      issuer: this.tenant.name,
    };
  }
}
