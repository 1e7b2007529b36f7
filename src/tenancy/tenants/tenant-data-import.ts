import { addMonths, DEFAULT_TIME_ZONE, todayIn } from '../../platform/time/tenant-clock';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { hashPassword } from '../../platform/auth/password-hasher';
import type { CustomAttributeDefinition } from '../../platform/config-items/config-item-registry';
import { ImportError } from './tenant-import-error';
import { PERSON_TEXT_FIELDS, type CompetenceNode, type EventNode, type NamedNode, type OrganisationNode, type TenantImport } from './tenant-import.schema';

type RefMap = Map<string, number>;

function need(map: RefMap, kind: string, ref: string, where: string): number {
  const id = map.get(ref);
  if (id === undefined) throw new ImportError(`${where}: unknown ${kind} ref "${ref}"`);
  return id;
}

/**
 * Inserts a tenant-import/1 document's data into the (new, empty) tenant schema. The format spans
 * every module's tables, so this and the exporter are the one place that writes them all, as the
 * tenant migrations are the one place that creates them.
 */
export class DataImport {
  /** Rows each table received in multi-row inserts: the importer analyzes the large ones. */
  readonly bulkRows = new Map<string, number>();
  private readonly orgs: RefMap = new Map();
  private readonly roles: RefMap = new Map();
  private readonly groups: RefMap = new Map();
  private readonly categories: RefMap = new Map();
  private readonly attributes: RefMap = new Map();
  private readonly persons: RefMap = new Map();
  private readonly competences: RefMap = new Map();
  private readonly validMonths = new Map<string, number | undefined>();
  private readonly locations: RefMap = new Map();
  private readonly events: RefMap = new Map();
  private readonly customAttributes: CustomAttributeDefinition[];
  /** The default registration date: today in the zone the document gives the tenant. */
  private readonly today: string;

  constructor(
    private readonly db: TenantDb,
    private readonly doc: TenantImport,
    private readonly progress: (m: string) => void,
    private readonly slug: string,
    now: Date,
  ) {
    this.today = todayIn((doc.config['tenant.timezone'] as string | undefined) ?? DEFAULT_TIME_ZONE, now);
    this.customAttributes = (doc.config.custom_attributes as CustomAttributeDefinition[] | undefined) ?? [];
  }

  async run(): Promise<void> {
    const d = this.doc;
    for (const o of d.organisations) await this.organisation(o, null);
    for (const r of d.roles) {
      this.unique(this.roles, 'role', r.ref);
      this.roles.set(r.ref, await this.insert('roles', { ref: r.ref, name: r.name, description: r.description, meta_type: r.meta_type }));
    }
    for (const g of d.competence_groups) await this.named('competence_groups', this.groups, 'competence group', g, null);
    for (const c of d.categories) await this.named('categories', this.categories, 'category', c, null);
    for (const a of d.attributes) {
      this.unique(this.attributes, 'attribute', a.ref);
      this.attributes.set(a.ref, await this.insert('attributes', { ref: a.ref, name: a.name }));
    }
    this.progress(`${this.slug}: ${this.orgs.size} organisations, ${this.roles.size} roles`);
    await this.importPersons();
    this.progress(`${this.slug}: ${this.persons.size} persons`);
    for (const c of d.competences) await this.competence(c, null);
    for (const [i, r] of d.requirements.entries()) {
      const where = `requirements[${i}]`;
      await this.db.table('requirements').insert({
        role_id: need(this.roles, 'role', r.role, where),
        competence_id: need(this.competences, 'competence', r.competence, where),
        mandatory: r.mandatory,
      });
    }
    for (const l of d.locations) {
      this.unique(this.locations, 'location', l.ref);
      this.locations.set(l.ref, await this.insert('locations', { ...l }));
    }
    for (const e of d.events) await this.event(e, null);
    this.progress(`${this.slug}: ${this.competences.size} competences, ${this.events.size} events`);
    for (const [i, pe] of d.person_events.entries()) {
      const where = `person_events[${i}]`;
      const [signOn] = await this.db
        .table('person_events')
        .insert({
          person_id: need(this.persons, 'person', pe.person, where),
          event_id: need(this.events, 'event', pe.event, where),
          status: pe.status ?? 'signed_on',
          passed: pe.passed ?? null,
        })
        .returning('id');
      for (const [j, r] of (pe.results ?? []).entries()) {
        await this.db.table('event_results').insert({
          person_event_id: signOn.id,
          event_id: need(this.events, 'event', r.event, `${where}.results[${j}]`),
          met: r.met ?? null,
          passed: r.passed ?? null,
          reached: r.reached ?? null,
          grade: r.grade ?? null,
          comments: r.comments ?? null,
        });
      }
    }
    const registrations = d.person_competences.map((pc, i) => {
      const where = `person_competences[${i}]`;
      const months = this.validMonths.get(pc.competence);
      const date = pc.date ?? this.today;
      return {
        person_id: need(this.persons, 'person', pc.person, where),
        competence_id: need(this.competences, 'competence', pc.competence, where),
        passed: pc.passed ?? 100,
        date,
        valid_until: pc.valid_until ?? (months ? addMonths(date, months) : null),
        grade: pc.grade ?? null,
        school: pc.school ?? null,
        graduation_year: pc.graduation_year ?? null,
        comments: pc.comments ?? null,
        skill_level: pc.skill_level ?? null,
        checked: pc.checked ?? null,
        signed: pc.signed ?? null,
      };
    });
    await this.insertBatched('person_competences', registrations);
    this.progress(`${this.slug}: ${d.person_events.length} sign-ons, ${d.person_competences.length} registrations`);
  }

  private unique(map: RefMap, kind: string, ref: string): void {
    if (map.has(ref)) throw new ImportError(`duplicate ${kind} ref "${ref}"`);
  }

  private async insert(table: string, row: Record<string, unknown>): Promise<number> {
    const [r] = await this.db.table(table).insert(row).returning('id');
    return r.id;
  }

  private async organisation(o: OrganisationNode, parentId: number | null): Promise<void> {
    this.unique(this.orgs, 'organisation', o.ref);
    const id = await this.insert('organisations', {
      ref: o.ref,
      parent_id: parentId,
      name: o.name,
      email: o.email,
      address: o.address,
      phone: o.phone,
      extern_organisation_id: o.extern_organisation_id === undefined ? null : String(o.extern_organisation_id),
    });
    this.orgs.set(o.ref, id);
    for (const c of o.children ?? []) await this.organisation(c, id);
  }

  private async named(table: string, map: RefMap, kind: string, n: NamedNode, parentId: number | null): Promise<void> {
    this.unique(map, kind, n.ref);
    const row: Record<string, unknown> = { ref: n.ref, parent_id: parentId, name: n.name };
    if (table === 'categories') row.description = n.description;
    else row.external_id = n.external_id === undefined ? null : String(n.external_id);
    const id = await this.insert(table, row);
    map.set(n.ref, id);
    for (const c of n.children ?? []) await this.named(table, map, kind, c, id);
  }

  private async importPersons(): Promise<void> {
    const hashes = await Promise.all(this.doc.persons.map(async (p) => (p.password_hash ? p.password_hash : p.password ? hashPassword(p.password) : null)));
    const rows = this.doc.persons.map((p, i) => {
      const where = `persons[${i}] (${p.user_name})`;
      if (this.persons.has(p.user_name)) throw new ImportError(`${where}: duplicate user_name`);
      this.persons.set(p.user_name, -1);
      const row: Record<string, unknown> = {
        user_name: p.user_name,
        password_hash: hashes[i],
        password_changed_at: p.password_changed_at ?? new Date(),
        must_change_password: p.must_change_password ?? null,
        deactivated_at: p.deactivated === false || !(p.deactivated || p.deactivated_at) ? null : (p.deactivated_at ?? new Date()),
        birthdate: p.birthdate ?? null,
        superuser: p.superuser ?? false,
        superadmin: p.superadmin ?? false,
        organisation_id: p.organisation ? need(this.orgs, 'organisation', p.organisation, where) : null,
        language: p.language ?? null,
      };
      for (const f of PERSON_TEXT_FIELDS) row[f] = p[f] ?? null;
      return row;
    });
    for (const inserted of await this.insertBatched('persons', rows, ['id', 'user_name'])) {
      this.persons.set(inserted.user_name, inserted.id);
    }
    const roleRows: Record<string, unknown>[] = [];
    const managerRows: Record<string, unknown>[] = [];
    for (const [i, p] of this.doc.persons.entries()) {
      const where = `persons[${i}] (${p.user_name})`;
      const id = this.persons.get(p.user_name)!;
      for (const r of p.roles ?? []) roleRows.push({ person_id: id, role_id: need(this.roles, 'role', r, where) });
      for (const o of p.manages ?? []) {
        managerRows.push({ person_id: id, organisation_id: need(this.orgs, 'organisation', o, `${where} manages`) });
      }
    }
    await this.insertBatched('person_roles', roleRows);
    await this.insertBatched('organisation_managers', managerRows);
    const adminRows = this.doc.roles.flatMap((r, i) =>
      (r.admins ?? []).map((a) => ({ role_id: this.roles.get(r.ref), person_id: need(this.persons, 'person', a, `roles[${i}] (${r.ref}) admins`) })),
    );
    await this.insertBatched('role_admins', adminRows);
  }

  /** Multi-row inserts; large documents (benchmark, big customers) would take minutes row by row. */
  private async insertBatched(table: string, rows: Record<string, unknown>[], returning?: string[]): Promise<any[]> {
    this.bulkRows.set(table, (this.bulkRows.get(table) ?? 0) + rows.length);
    const out: any[] = [];
    for (let i = 0; i < rows.length; i += 1000) {
      const q = this.db.table(table).insert(rows.slice(i, i + 1000));
      out.push(...(returning ? await q.returning(returning) : (await q, [])));
    }
    return out;
  }

  private checkCustomAttributes(values: Record<string, unknown> | undefined, appliesTo: 'competence' | 'event', where: string) {
    for (const name of Object.keys(values ?? {})) {
      const def = this.customAttributes.find((a) => a.name === name);
      if (!def) throw new ImportError(`${where}: custom attribute "${name}" is not defined in config custom_attributes`);
      if (!def.applies_to.includes(appliesTo)) throw new ImportError(`${where}: custom attribute "${name}" does not apply to ${appliesTo}s`);
    }
    return values ?? {};
  }

  private async competence(c: CompetenceNode, parentId: number | null, order = 0): Promise<void> {
    const where = `competence "${c.ref}"`;
    this.unique(this.competences, 'competence', c.ref);
    const id = await this.insert('competences', {
      ref: c.ref,
      parent_id: parentId,
      title: c.title,
      description: c.description ?? null,
      type: c.type,
      active: c.active ?? true,
      valid_months: c.valid_months ?? null,
      pass_mark: c.pass_mark ?? null,
      competence_group_id: c.group ? need(this.groups, 'competence group', c.group, where) : null,
      owner_id: c.owner ? need(this.persons, 'person', c.owner, `${where} owner`) : null,
      instructor_id: c.instructor ? need(this.persons, 'person', c.instructor, `${where} instructor`) : null,
      checked_by: c.type === 'checklist_item' ? (c.checked_by ?? 'self') : null,
      lms_start_url: c.lms_start_url ?? null,
      custom_attributes: JSON.stringify(this.checkCustomAttributes(c.custom_attributes, 'competence', where)),
      sort_order: order,
    });
    this.competences.set(c.ref, id);
    this.validMonths.set(c.ref, c.valid_months);
    for (const cat of c.categories ?? []) {
      await this.db.table('competence_categories').insert({ competence_id: id, category_id: need(this.categories, 'category', cat, where) });
    }
    for (const a of c.attributes ?? []) {
      await this.db.table('competence_attributes').insert({ competence_id: id, attribute_id: need(this.attributes, 'attribute', a, where) });
    }
    for (const [i, child] of (c.children ?? []).entries()) await this.competence(child, id, i);
  }

  private async event(e: EventNode, parentId: number | null): Promise<void> {
    const where = `event "${e.ref}"`;
    this.unique(this.events, 'event', e.ref);
    if (Date.parse(e.end) < Date.parse(e.start)) throw new ImportError(`${where}: end is before start`);
    const id = await this.insert('events', {
      ref: e.ref,
      parent_id: parentId,
      competence_id: need(this.competences, 'competence', e.competence, where),
      title: e.title,
      description: e.description ?? null,
      location_id: e.location ? need(this.locations, 'location', e.location, where) : null,
      host_organisation_id: e.host_organisation ? need(this.orgs, 'organisation', e.host_organisation, where) : null,
      instructor_id: e.instructor ? need(this.persons, 'person', e.instructor, `${where} instructor`) : null,
      starts_at: e.start,
      ends_at: e.end,
      signon_opens: e.signon_opens ?? null,
      signon_closes: e.signon_closes ?? null,
      max_participants: e.max_participants ?? null,
      min_age: e.min_age ?? null,
      cancelled: e.cancelled ?? false,
      cancel_reason: e.cancelled ? (e.cancel_reason ?? null) : null,
      cancelled_at: e.cancelled ? new Date() : null,
      locked: e.locked ?? false,
      custom_attributes: JSON.stringify(this.checkCustomAttributes(e.custom_attributes, 'event', where)),
    });
    this.events.set(e.ref, id);
    for (const pr of e.prerequisites ?? []) {
      await this.db.table('event_prerequisites').insert({ event_id: id, competence_id: need(this.competences, 'competence', pr, where) });
    }
    for (const child of e.children ?? []) await this.event(child, id);
  }
}
