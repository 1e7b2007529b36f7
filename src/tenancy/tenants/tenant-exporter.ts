import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { CLUSTERS, MAIN_CLUSTER, type Clusters } from '../../platform/clusters/clusters';
import { KNEX } from '../../platform/tokens';
import { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { PlatformDb } from '../../platform/tenant-scope/platform-db';
import { configItemDefinition } from '../../platform/config-items/config-item-registry';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { oneQueryAtATime } from '../../platform/db/one-query-at-a-time';
import { PERSON_TEXT_FIELDS, type TenantImport } from './tenant-import.schema';

export interface ExportOptions {
  /** Include secret config items (api.oauth.secret). Default true: the operator is trusted. */
  secrets?: boolean;
}

type Row = Record<string, any>;

/** Drops null/undefined values, empty arrays and empty objects, so the document stays minimal. */
function compact<T extends Row>(o: T): T {
  const out: Row = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out as T;
}

/** ISO date-time without zero milliseconds, as people write it in documents. */
const isoTime = (d: Date | null) => (d ? d.toISOString().replace('.000Z', 'Z') : null);

/** Rows grouped by a key, keeping their order. */
function groupBy(rows: Row[], key: string): Map<unknown, Row[]> {
  const m = new Map<unknown, Row[]>();
  for (const r of rows) m.set(r[key], [...(m.get(r[key]) ?? []), r]);
  return m;
}

/**
 * Writes a tenant as a tenant-import/1 document that imports again into an identical
 * tenant. Objects keep the `ref` they were imported with; objects created later get
 * `<kind>-<id>`. Persons carry their password hash; only current registrations are exported.
 */
@injectable()
export class TenantExporter {
  constructor(
    @inject(KNEX) private readonly knex: Knex,
    @inject(CLUSTERS) private readonly clusters: Clusters,
  ) {}

  async export(tenant: Tenant, options: ExportOptions = {}): Promise<TenantImport> {
    // config items live in the platform database: one snapshot with the tenant's rows on main only
    const main = this.clusters.checked(tenant.cluster) === MAIN_CLUSTER;
    return this.clusters.admin(tenant.cluster).transaction(
      async (raw) => {
        // the snapshot reads its tables together (Promise.all): one query at a time on the one connection
        const trx = oneQueryAtATime(raw);
        return new Snapshot(new TenantDb(trx, tenant.schema), main ? trx : this.knex).build(tenant, options.secrets ?? true);
      },
      { isolationLevel: 'repeatable read' },
    );
  }
}

class Snapshot {
  private readonly refs = new Map<string, Map<number, string>>();
  constructor(
    private readonly db: TenantDb,
    private readonly trx: Knex | Knex.Transaction,
  ) {}

  private async load(table: string, kind: string, order = 'id'): Promise<Row[]> {
    const rows: Row[] = await this.db.table(table).orderBy(order).orderBy('id').select('*');
    this.refs.set(table, new Map(rows.map((r) => [r.id, r.ref ?? `${kind}-${r.id}`])));
    return rows;
  }

  private ref(table: string, id: number | null): string | undefined {
    return id === null ? undefined : this.refs.get(table)!.get(id);
  }

  /** Nested nodes from parent_id, children in row order. */
  private tree(rows: Row[], node: (r: Row) => Row): any[] {
    const byParent = groupBy(rows, 'parent_id');
    const build = (parent: number | null): Row[] => (byParent.get(parent) ?? []).map((r) => compact({ ...node(r), children: build(r.id) }));
    return build(null);
  }

  async build(tenant: Tenant, secrets: boolean): Promise<TenantImport> {
    const orgs = await this.load('organisations', 'organisation');
    const roles = await this.load('roles', 'role');
    const groups = await this.load('competence_groups', 'group');
    const categories = await this.load('categories', 'category');
    const attributes = await this.load('attributes', 'attribute');
    const locations = await this.load('locations', 'location');
    const persons: Row[] = await this.db.table('persons').orderBy('id').select('*', this.db.raw("to_char(birthdate, 'YYYY-MM-DD') as birthdate_text"));
    this.refs.set('persons', new Map(persons.map((p) => [p.id, p.user_name])));
    const competences = await this.load('competences', 'competence', 'sort_order');
    const events = await this.load('events', 'event');
    // Link tables have no id; physical order keeps the order they were written in (the document's).
    const links = (t: string) => this.db.table(t).select('*').orderByRaw('ctid');
    const [personRoles, managers, roleAdmins, compCats, compAttrs, requirements, prerequisites, personEvents, personCompetences, eventResults] =
      await Promise.all([
        links('person_roles'),
        links('organisation_managers'),
        links('role_admins'),
        links('competence_categories'),
        links('competence_attributes'),
        links('requirements'),
        links('event_prerequisites'),
        this.db.table('person_events').select('*').orderBy('id'),
        this.db
          .table('person_competences')
          .whereNull('superseded_at')
          .whereNull('deleted_at')
          .orderBy('id')
          .select('*', this.db.raw("to_char(date, 'YYYY-MM-DD') as date_text"), this.db.raw("to_char(valid_until, 'YYYY-MM-DD') as valid_until_text")),
        this.db.table('event_results').select('*').orderBy('id'),
      ]);
    const resultsOf = groupBy(eventResults, 'person_event_id');
    const refsOf = (links: Row[], key: string, table: string, target: string) => {
      const m = groupBy(links, key);
      return (id: number) => (m.get(id) ?? []).map((l) => this.ref(table, l[target])!);
    };
    const rolesOf = refsOf(personRoles, 'person_id', 'roles', 'role_id');
    const managesOf = refsOf(managers, 'person_id', 'organisations', 'organisation_id');
    const adminsOf = refsOf(roleAdmins, 'role_id', 'persons', 'person_id');
    const catsOf = refsOf(compCats, 'competence_id', 'categories', 'category_id');
    const attrsOf = refsOf(compAttrs, 'competence_id', 'attributes', 'attribute_id');
    const prereqsOf = refsOf(prerequisites, 'event_id', 'competences', 'competence_id');

    return {
      format: 'tenant-import/1',
      tenant: { slug: tenant.slug, name: tenant.name, hosts: [...tenant.hosts] },
      config: await this.config(tenant.id, secrets),
      organisations: this.tree(orgs, (o) => ({
        ref: this.ref('organisations', o.id),
        name: o.name,
        email: o.email,
        address: o.address,
        phone: o.phone,
        extern_organisation_id: o.extern_organisation_id,
      })),
      roles: roles.map((r) =>
        compact({ ref: this.ref('roles', r.id)!, name: r.name, description: r.description, meta_type: r.meta_type, admins: adminsOf(r.id) }),
      ),
      competence_groups: this.tree(groups, (g) => ({ ref: this.ref('competence_groups', g.id), name: g.name, external_id: g.external_id })),
      categories: this.tree(categories, (c) => ({ ref: this.ref('categories', c.id), name: c.name, description: c.description })),
      attributes: attributes.map((a) => ({ ref: this.ref('attributes', a.id)!, name: a.name })),
      competences: this.tree(competences, (c) => ({
        ref: this.ref('competences', c.id),
        title: c.title,
        description: c.description,
        type: c.type,
        group: this.ref('competence_groups', c.competence_group_id),
        categories: catsOf(c.id),
        attributes: attrsOf(c.id),
        custom_attributes: c.custom_attributes,
        valid_months: c.valid_months,
        pass_mark: c.pass_mark ?? undefined,
        owner: this.ref('persons', c.owner_id),
        instructor: this.ref('persons', c.instructor_id),
        checked_by: c.checked_by,
        lms_start_url: c.lms_start_url,
        active: c.active ? undefined : false,
      })),
      requirements: requirements.map((r: Row) => ({
        role: this.ref('roles', r.role_id)!,
        competence: this.ref('competences', r.competence_id)!,
        mandatory: r.mandatory,
      })),
      locations: locations.map((l) =>
        compact({ ref: this.ref('locations', l.id)!, name: l.name, address: l.address, capacity: l.capacity, latitude: l.latitude, longitude: l.longitude }),
      ),
      persons: persons.map((p) => {
        const text = Object.fromEntries(PERSON_TEXT_FIELDS.map((f) => [f, p[f]]));
        return compact({
          user_name: p.user_name,
          password_hash: p.password_hash?.startsWith('$') ? p.password_hash : undefined,
          ...text,
          birthdate: p.birthdate_text,
          language: p.language ?? undefined,
          organisation: this.ref('organisations', p.organisation_id),
          roles: rolesOf(p.id),
          superuser: p.superuser ? true : undefined,
          superadmin: p.superadmin ? true : undefined,
          manages: managesOf(p.id),
          password_changed_at: isoTime(p.password_changed_at) ?? undefined,
          must_change_password: p.must_change_password,
          deactivated: p.deactivated_at ? true : undefined,
          deactivated_at: isoTime(p.deactivated_at) ?? undefined,
        });
      }),
      events: this.tree(events, (e) => ({
        ref: this.ref('events', e.id),
        competence: this.ref('competences', e.competence_id),
        title: e.title,
        description: e.description,
        location: this.ref('locations', e.location_id),
        host_organisation: this.ref('organisations', e.host_organisation_id),
        instructor: this.ref('persons', e.instructor_id),
        start: isoTime(e.starts_at),
        end: isoTime(e.ends_at),
        signon_opens: isoTime(e.signon_opens),
        signon_closes: isoTime(e.signon_closes),
        max_participants: e.max_participants,
        min_age: e.min_age,
        prerequisites: prereqsOf(e.id),
        cancelled: e.cancelled ? true : undefined,
        cancel_reason: e.cancelled ? (e.cancel_reason ?? undefined) : undefined,
        locked: e.locked ? true : undefined,
        custom_attributes: e.custom_attributes,
      })),
      person_events: personEvents.map((pe: Row) =>
        compact({
          person: this.ref('persons', pe.person_id)!,
          event: this.ref('events', pe.event_id)!,
          passed: pe.passed,
          // signed_on is what the import assumes when status is left out
          status: pe.status === 'signed_on' ? undefined : pe.status,
          results: resultsOf.has(pe.id)
            ? resultsOf
                .get(pe.id)!
                .map((r: Row) =>
                  compact({ event: this.ref('events', r.event_id)!, met: r.met, passed: r.passed, reached: r.reached, grade: r.grade, comments: r.comments }),
                )
            : undefined,
        }),
      ),
      person_competences: personCompetences.map((pc: Row) =>
        compact({
          person: this.ref('persons', pc.person_id)!,
          competence: this.ref('competences', pc.competence_id)!,
          date: pc.date_text,
          valid_until: pc.valid_until_text,
          passed: pc.passed,
          grade: pc.grade,
          school: pc.school,
          graduation_year: pc.graduation_year,
          comments: pc.comments,
          skill_level: pc.skill_level,
          checked: pc.checked,
          signed: pc.signed,
        }),
      ),
    };
  }

  private async config(tenantId: number, secrets: boolean): Promise<Record<string, unknown>> {
    const rows: Row[] = await this.trx
      .withSchema(PlatformDb.SCHEMA)
      .table('config_items')
      .where({ tenant_id: tenantId })
      .orderBy('item_id')
      .select('item_id', 'value');
    const out: Record<string, unknown> = {};
    for (const r of rows) {
      const def = configItemDefinition(r.item_id);
      if (!def || r.value === null) continue;
      if (def.secret && !secrets) continue;
      out[r.item_id] = r.value;
    }
    return out;
  }
}
