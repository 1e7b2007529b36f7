import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Rules over the code itself (no server): the module rule on imports is dependency-cruiser's
 * (.dependency-cruiser.cjs, run by npm test); these it cannot see.
 */

const ROOT = join(__dirname, '../..');
const SRC = join(ROOT, 'src');

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p, ext) : ext.test(name) ? [p] : [];
  });
}

/** Which module owns which table; only the owner names it (others call the owner's index.ts). */
const OWNERS: Record<string, string[]> = {
  platform: ['audit_log', 'tenants', 'tenant_hosts', 'config_items', 'config_item_changes', 'tenant_moves'],
  people: ['persons', 'organisations', 'organisation_managers'],
  catalogue: [
    'competences',
    'competence_groups',
    'categories',
    'competence_categories',
    'attributes',
    'competence_attributes',
    'competence_organisations',
    'roles',
    'requirements',
    'person_roles',
    'organisation_roles',
    'role_admins',
    'person_competences',
    'competence_deletions',
    'certificates',
  ],
  courses: [
    'events',
    'event_prerequisites',
    'event_deletions',
    'event_results',
    'locations',
    'orders',
    'person_events',
    'survey_answers',
    'files',
    'calendar_feeds',
  ],
  tenancy: ['imports'],
  identity: ['identity_providers', 'api_clients', 'credential_keys', 'scim_users', 'scim_groups'],
  messaging: [
    'messages',
    'message_deliveries',
    'message_attachments',
    'expiry_reminders',
    'report_schedules',
    'report_schedule_runs',
    'webhook_endpoints',
    'webhook_events',
    'webhook_deliveries',
    'webhook_attempts',
    'notification_preferences',
    'message_templates',
  ],
};

/**
 * Allowed on purpose: the tenant-import/1 format spans every module's tables, so its importer and
 * exporter are the one place that names them all (as the tenant migrations are). The archive and
 * the move between PostgreSQL clusters (tenants/archive, tenants/placement) copy every table of a
 * tenant's schema too, but as the PostgreSQL catalog lists them: they name none, so they need no
 * entry here. Tenancy administers the kernel's rows of tenants (status, hosts, archives, moves).
 */
const ALLOWED: { file: RegExp; tables: 'all' | string[] }[] = [
  { file: /^src\/tenancy\/tenants\/(tenant-data-import|tenant-exporter)\.ts$/, tables: 'all' },
  { file: /^src\/tenancy\/tenants\//, tables: ['tenants', 'tenant_hosts', 'config_items', 'config_item_changes', 'tenant_moves'] },
];

const owner = new Map(Object.entries(OWNERS).flatMap(([m, tables]) => tables.map((t) => [t, m] as const)));
const tableName = [...owner.keys()].sort((a, b) => b.length - a.length).join('|');
// .table('x'), .table<T>('x as y'), .ref('x'), join('x ...'), leftJoin, .from('x'): where code names a table
const USE = new RegExp(String.raw`(?:\.table|\.ref|[jJ]oin|\.from)(?:<[^>]*>)?\(\s*['"\`](${tableName})\b`, 'g');

describe('code rules', () => {
  it('no file in src/ is over 300 lines', () => {
    const long = files(SRC, /\.(ts|js)$/)
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 300);
    expect(long).toEqual([]);
  });

  it("a module names only its own tables; another module's are reached through its index.ts", () => {
    const foreign: string[] = [];
    for (const f of files(SRC, /\.ts$/)) {
      const file = relative(ROOT, f);
      const module = file.split('/')[1];
      for (const m of readFileSync(f, 'utf8').matchAll(USE)) {
        const table = m[1];
        if (owner.get(table) === module) continue;
        if (ALLOWED.some((a) => a.file.test(file) && (a.tables === 'all' || a.tables.includes(table)))) continue;
        foreign.push(`${file} names ${table} (owned by ${owner.get(table)})`);
      }
    }
    expect(foreign).toEqual([]);
  });

  it('every table of the tenant and platform migrations has an owner', () => {
    const created = files(join(ROOT, 'migrations'), /\.ts$/).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/createTable\('([a-z_]+)'/g)].map((m) => m[1]),
    );
    expect(created.filter((t) => !owner.has(t))).toEqual([]);
  });

  it('every relative link in README.md and the READMEs under src/ and test/ resolves to a file', () => {
    const readmes = [join(ROOT, 'README.md'), ...files(SRC, /^README\.md$/), ...files(join(ROOT, 'test'), /^README\.md$/)];
    const broken: string[] = [];
    for (const f of readmes) {
      for (const m of readFileSync(f, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = m[1].split('#')[0];
        if (!path || /^[a-z]+:/i.test(path)) continue;
        if (!existsSync(join(dirname(f), path))) broken.push(`${relative(ROOT, f)}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
