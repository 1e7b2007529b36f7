import { z } from 'zod';
import { inject, injectAll, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { auditEntriesOf } from '../../platform/audit';
import { PERSON_DATA, type ExportPage, type PersonDataHolder, type PersonExportSection } from '../../platform/privacy/personal-data';
import { PersonFull, type PersonWithDetails } from '../../people';
import { PersonViews } from './person-views';

const rows = (what: string) => z.array(z.record(z.string(), z.unknown())).describe(what);

/** Rows of each section per page of the export: default and most (larger asks are a 420). */
export const EXPORT_PAGE_DEFAULT = 1000;
export const EXPORT_PAGE_MAX = 5000;

const LIST_SECTIONS = ['personcompetences', 'personevents', 'surveyanswers', 'messages', 'files', 'notificationpreferences', 'auditlog'] as const;

export const PersonExportView = z
  .object({
    person: PersonFull,
    roles: rows('roles held: role_id, name, meta_type'),
    personcompetences: rows('every registration ever stored, current, superseded (superseded_at) and deleted (deleted_at) alike'),
    personevents: rows('sign-ons, wait list places and sign-offs'),
    surveyanswers: rows('survey answers given by or for the person, with their items'),
    messages: rows('messages to and from the person (direction: received | sent) with delivery states per medium'),
    files: rows('uploaded files (metadata; download_url fetches the bytes)'),
    notificationpreferences: rows('notification preferences the person chose: notice_type, medium (email, sms, both, none), updated_at'),
    auditlog: rows('security event log entries where the person is actor or subject'),
    paging: z
      .object({
        limit: z.number().int(),
        offset: z.number().int(),
        more: z.array(z.enum(LIST_SECTIONS)).describe('sections with rows past this page: ask again with offset + limit'),
      })
      .describe(`every list section is one page, in id order: at most limit rows (default ${EXPORT_PAGE_DEFAULT}, at most ${EXPORT_PAGE_MAX}) from offset on`),
  })
  .describe('Everything stored about one person (GDPR articles 15 and 20). Never a password hash or pending password.')
  .meta({ id: 'PersonExport' });

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
  async export(person: PersonWithDetails, page: ExportPage = { limit: EXPORT_PAGE_DEFAULT, offset: 0 }): Promise<z.infer<typeof PersonExportView>> {
    const view = (await this.views.present(person, 'full')) as z.infer<typeof PersonFull>;
    const key = { id: person.id, user_name: person.user_name };
    // one row past the page tells whether a section goes on
    const probe = { limit: page.limit + 1, offset: page.offset };
    const [sections, auditRows] = await Promise.all([
      Promise.all(this.holders.map(async (h) => (await h.export?.(key, probe)) ?? {})),
      auditEntriesOf(this.db, person.id, probe),
    ]);
    const found: Partial<Record<PersonExportSection | 'auditlog', Record<string, unknown>[]>> = Object.assign({ auditlog: auditRows }, ...sections);
    const more = LIST_SECTIONS.filter((name) => (found[name]?.length ?? 0) > page.limit);
    const section = (name: PersonExportSection | 'auditlog') => (found[name] ?? []).slice(0, page.limit);
    return {
      person: view,
      roles: view.roles ?? [],
      personcompetences: section('personcompetences'),
      personevents: section('personevents'),
      surveyanswers: section('surveyanswers'),
      messages: section('messages'),
      files: section('files'),
      notificationpreferences: section('notificationpreferences'),
      auditlog: section('auditlog'),
      paging: { limit: page.limit, offset: page.offset, more },
    };
  }
}
