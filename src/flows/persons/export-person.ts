import { z } from 'zod';
import { inject, injectAll, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { auditEntriesOf } from '../../platform/audit';
import { PERSON_DATA, type PersonDataHolder, type PersonExportSection } from '../../platform/privacy/personal-data';
import { PersonView, type PersonWithDetails } from '../../people';
import { PersonViews } from './person-views';

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
 * GET /api/persons/[user_name]/export, the right of access and portability: one answer with
 * everything the tenant stores about a person. The person's full view (people, with catalogue's
 * roles) is what the route's access rule read; each module that keeps personal data fills its
 * sections (PERSON_DATA), read straight from its tables rather than through the list endpoints,
 * which hide history (superseded and deleted registrations) and page their answers.
 */
@injectable()
export class ExportPersonFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PersonViews) private readonly views: PersonViews,
    @injectAll(PERSON_DATA, { isOptional: true }) private readonly holders: PersonDataHolder[] = [],
  ) {}

  /** `person`: resolved and allowed by the route (the person themself or a superuser), with the full view's details. */
  async export(person: PersonWithDetails): Promise<z.infer<typeof PersonExportView>> {
    const view = (await this.views.present(person, 'full')) as z.infer<typeof PersonView>;
    const key = { id: person.id, user_name: person.user_name };
    const [sections, auditlog] = await Promise.all([
      Promise.all(this.holders.map((h) => h.export?.(key) ?? {})),
      auditEntriesOf(this.db, person.id),
    ]);
    const found: Partial<Record<PersonExportSection, Record<string, unknown>[]>> = Object.assign({}, ...sections);
    const section = (name: PersonExportSection) => found[name] ?? [];
    return {
      person: view,
      roles: view.roles ?? [],
      personcompetences: section('personcompetences'),
      personevents: section('personevents'),
      surveyanswers: section('surveyanswers'),
      messages: section('messages'),
      files: section('files'),
      auditlog,
    };
  }
}
