import { z } from 'zod';
import { inject, injectAll, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { TargetPerson } from '../person-access';
import { auditEntriesOf } from '../../platform/audit';
import { PERSON_DATA, type PersonDataHolder, type PersonExportSection } from '../../platform/privacy/personal-data';
import { PersonsService } from './persons.service';
import { PersonView } from './person.presenter';

const rows = (what: string) => z.array(z.record(z.string(), z.unknown())).describe(what);

export const PersonExportView = z
  .object({
    person: PersonView,
    roles: rows('roles held: role_id, name, meta_type'),
    personcompetences: rows('every registration ever stored, current, superseded (superseded_at) and deleted (deleted_at) alike'),
    personevents: rows('sign-ons, wait list places and sign-offs'),
    surveyanswers: rows('survey answers given by or for the person, with their items'),
    messages: rows('messages to and from the person (direction: received | sent) with delivery states per medium'),
    files: rows('uploaded files (metadata; download_url fetches the bytes)'),
    auditlog: rows('security event log entries where the person is actor or subject'),
  })
  .describe('Everything stored about one person (GDPR articles 15 and 20). Never a password hash or pending password.');

/**
 * The right of access and portability: one answer with everything the tenant stores about a
 * person. Each module that keeps personal data fills its sections (PERSON_DATA), read straight
 * from its tables rather than through the list endpoints, which hide history (superseded and
 * deleted registrations) and page their answers.
 */
@injectable()
export class PersonExporter {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PersonsService) private readonly persons: PersonsService,
    @injectAll(PERSON_DATA, { isOptional: true }) private readonly holders: PersonDataHolder[] = [],
  ) {}

  /** `target`: the person, resolved and allowed by the route (the person themself or a superuser). */
  async export(target: TargetPerson): Promise<z.infer<typeof PersonExportView>> {
    const row = await this.persons.requireById(target.id, true);
    const person = (await this.persons.present(row, 'full')) as z.infer<typeof PersonView>;
    const key = { id: row.id, user_name: row.user_name };
    const [sections, auditlog] = await Promise.all([
      Promise.all(this.holders.map((h) => h.export?.(key) ?? {})),
      auditEntriesOf(this.db, row.user_name),
    ]);
    const found: Partial<Record<PersonExportSection, Record<string, unknown>[]>> = Object.assign({}, ...sections);
    const section = (name: PersonExportSection) => found[name] ?? [];
    return {
      person,
      roles: person.roles ?? [],
      personcompetences: section('personcompetences'),
      personevents: section('personevents'),
      surveyanswers: section('surveyanswers'),
      messages: section('messages'),
      files: section('files'),
      auditlog,
    };
  }
}
