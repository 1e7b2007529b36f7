import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenancy/tenant-db';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { presentFile, type FileRow } from '../../courses/files/files.service';
import { PersonsService } from './persons.service';
import { PersonView } from './person.presenter';
import type { PersonRow } from './persons.repository';

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

/** A calendar date as text: pg would build a local-midnight Date that shifts in JSON. */
const day = (db: TenantDb, col: string, as: string) => db.raw(`to_char(${col}, 'YYYY-MM-DD') as ${as}`);

/**
 * The right of access and portability: one answer with everything the tenant stores about a
 * person. Read straight from the tables, not through the list endpoints, because those hide
 * history (superseded/deleted registrations) and page their answers.
 */
@injectable()
export class PersonExporter {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PersonsService) private readonly persons: PersonsService,
  ) {}

  async export(user: Principal, userName: string): Promise<z.infer<typeof PersonExportView>> {
    const row = await this.persons.requireByUserName(userName, true);
    if (!user.superuser && user.personId !== row.id) {
      throw ApiError.forbidden('not authorised to export this person: only the person themself or a superuser may');
    }
    const person = (await this.persons.present(row, 'full')) as z.infer<typeof PersonView>;
    const [personcompetences, personevents, surveyanswers, messages, files, auditlog] = await Promise.all([
      this.personCompetences(row.id),
      this.personEvents(row.id),
      this.surveyAnswers(row.id),
      this.messages(row.id),
      this.files(row),
      this.auditLog(row.user_name),
    ]);
    return { person, roles: person.roles ?? [], personcompetences, personevents, surveyanswers, messages, files, auditlog };
  }

  private personCompetences(personId: number) {
    const db = this.db;
    return db.table('person_competences as pc').join('competences as c', 'c.id', 'pc.competence_id')
      .leftJoin('persons as rb', 'rb.id', 'pc.registered_by')
      .where('pc.person_id', personId)
      .select('pc.id as personcompetence_id', 'pc.competence_id', 'c.title', 'c.type', 'pc.passed',
        day(db, 'pc.date', 'date'), day(db, 'pc.valid_until', 'valid_until'), 'pc.comments', 'pc.grade', 'pc.school',
        'pc.graduation_year', 'pc.skill_level', 'pc.checked', 'pc.signed', 'pc.show_course_diploma', 'pc.override',
        'rb.user_name as registered_by', 'pc.created_at', 'pc.superseded_at', 'pc.deleted_at')
      .orderBy('pc.id');
  }

  private personEvents(personId: number) {
    return this.db.table('person_events as pe').join('events as e', 'e.id', 'pe.event_id')
      .leftJoin('orders as o', 'o.id', 'pe.order_id')
      .where('pe.person_id', personId)
      .select('pe.id as person_event_id', 'pe.event_id', 'e.title as event_title', 'e.starts_at as startdate', 'e.ends_at as enddate',
        'pe.status', 'pe.passed', 'o.reference as order_reference', 'pe.created_at as signed_on_at', 'pe.signed_off_at')
      .orderBy('pe.id');
  }

  private surveyAnswers(personId: number) {
    return this.db.table('survey_answers as sa').join('competences as c', 'c.id', 'sa.survey_id')
      .where('sa.person_id', personId)
      .select('sa.id as surveyanswer_id', 'sa.survey_id', 'c.title as survey_title', 'sa.data', 'sa.locked', 'sa.locked_at', 'sa.created_at', 'sa.updated_at')
      .orderBy('sa.id');
  }

  private async messages(personId: number) {
    const msgs = await this.db.table('messages as m')
      .leftJoin('persons as s', 's.id', 'm.sender_id').join('persons as r', 'r.id', 'm.recipient_id')
      .where((w) => w.where('m.recipient_id', personId).orWhere('m.sender_id', personId))
      .select('m.id as message_id', 'm.kind', 'r.user_name as user_name', 's.user_name as sender_user_name', 'm.recipient_id',
        'm.title', 'm.text', 'm.cc', 'm.reply_to', 'm.send_medium', 'm.created_at')
      .orderBy('m.id');
    const ids = msgs.map((m: { message_id: number }) => m.message_id);
    const deliveries = ids.length
      ? await this.db.table('message_deliveries').whereIn('message_id', ids)
        .select('message_id', 'medium', 'address', 'state', 'attempts', 'last_error as reason', 'sent_at').orderBy('id')
      : [];
    return msgs.map(({ recipient_id, ...m }: { recipient_id: number; message_id: number; kind: string; text: string }) => ({
      ...m,
      // a mailed password is never stored in clear, but say so rather than show the placeholder text
      text: m.kind === 'password' ? '********' : m.text,
      direction: recipient_id === personId ? 'received' : 'sent',
      deliveries: deliveries.filter((d: { message_id: number }) => d.message_id === m.message_id).map(({ message_id, ...d }: { message_id: number }) => d),
    }));
  }

  private async files(person: PersonRow) {
    const files: FileRow[] = await this.db.table('files').where('person_id', person.id).select('*').orderBy('id');
    return files.map((f) => presentFile({ ...f, user_name: person.user_name }));
  }

  private auditLog(userName: string) {
    return this.db.table('audit_log').where((w) => w.where('actor', userName).orWhere('subject', userName))
      .select('audit_id', 'at', 'type', 'actor', 'subject', 'ip', 'details').orderBy('audit_id')
      .then((r) => r.map((e: { audit_id: string }) => ({ ...e, audit_id: Number(e.audit_id) })));
  }
}
