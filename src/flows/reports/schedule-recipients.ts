import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { OrganisationManagersRepository, PersonAccess, PersonDirectory } from '../../people';

export interface ScheduleRecipient {
  id: number;
  user_name: string;
  email: string | null;
  /** For a preference of SMS (or both) for scheduled_report: the text goes by SMS, the file only by e-mail. */
  mobile: string | null;
  /** BCP 47: the language of the mail (null: the tenant's). */
  language: string | null;
}

interface Candidate extends ScheduleRecipient {
  organisation_id: number | null;
  deactivated_at: Date | null;
}

const COLUMNS = ['id', 'user_name', 'email', 'mobile', 'language', 'organisation_id', 'deactivated_at'] as const;

/**
 * Who a schedule mails. `user_names`: each must be the owner themself, a person the owner manages
 * (superusers: anyone), or a manager of the report's organisation (or of one above it): a report is
 * not mailed to whoever its owner likes. `managers`: the active persons assigned as managers of the
 * report's organisation itself. Checked at creation (420 naming schedule_data[recipients]) and again
 * at every run, where a recipient no longer allowed, deactivated or without e-mail is left out.
 */
@injectable()
export class ScheduleRecipients {
  constructor(
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(OrganisationManagersRepository) private readonly managers: OrganisationManagersRepository,
  ) {}

  /** The 420 of the API: unknown or not allowed user names. */
  async check(owner: Principal, organisationId: number, userNames: readonly string[]): Promise<void> {
    const { refused } = await this.named(owner, organisationId, userNames);
    if (refused.length) {
      throw ApiError.malformed(
        'schedule_data[recipients]',
        `${refused.join(', ')}: not a person you may send this report to (yourself, a person you manage, or a manager of the organisation)`,
      );
    }
  }

  /** Everyone to mail now (deduplicated, active, with an e-mail address), and those left out. */
  async resolve(
    owner: Principal,
    organisationId: number,
    userNames: readonly string[],
    withManagers: boolean,
  ): Promise<{ to: ScheduleRecipient[]; left_out: string[] }> {
    const { allowed, refused } = await this.named(owner, organisationId, userNames);
    const all = [...allowed];
    if (withManagers) {
      for (const m of await this.managers.managersOf(organisationId)) {
        const row = await this.persons.find({ id: m.id }, COLUMNS);
        if (row) all.push(row);
      }
    }
    const byId = new Map<number, Candidate>();
    for (const c of all) byId.set(c.id, c);
    const to: ScheduleRecipient[] = [];
    const leftOut = [...refused];
    for (const c of byId.values()) {
      if (c.deactivated_at || !c.email) leftOut.push(c.user_name);
      else to.push({ id: c.id, user_name: c.user_name, email: c.email, mobile: c.mobile, language: c.language });
    }
    return { to, left_out: leftOut };
  }

  private async named(owner: Principal, organisationId: number, userNames: readonly string[]): Promise<{ allowed: Candidate[]; refused: string[] }> {
    const allowed: Candidate[] = [];
    const refused: string[] = [];
    for (const name of new Set(userNames)) {
      const row = await this.persons.find({ user_name: name }, COLUMNS);
      if (row && (row.id === owner.personId || (await this.access.canManagePerson(owner, row)) || (await this.managers.managedBy(row.id)).has(organisationId)))
        allowed.push(row);
      else refused.push(name);
    }
    return { allowed, refused };
  }
}
