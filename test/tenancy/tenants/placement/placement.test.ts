import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cli, operator } from '../archive-support';
import { CLUSTERS } from '../../../../src/platform/clusters/clusters';
import { listSpares } from '../../../../src/platform/clusters/spare-catalog';
import { migrateSpares } from '../../../../src/platform/migrations/migrate-all';
import { tenantMigrations } from '../../../../migrations/tenant';
import { pickFewest, TenantPlacement } from '../../../../src/tenancy/tenants/placement/placement';
import { SpareSchemas } from '../../../../src/tenancy/tenants/placement/spare-schemas';
import { BulkProvisioner } from '../../../../src/tenancy/tenants/placement/bulk-provisioner';
import { TenantImporter } from '../../../../src/tenancy/tenants/tenant-importer';
import { client } from '../../../support/test-app';
import { asAcme } from '../../../support/login';
import { importOn, useTwoClusters } from './second-cluster';

const bed = useTwoClusters();
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const b = () => bed.t.container.resolve(CLUSTERS).admin('b');

describe('the placement rule', () => {
  it('takes the cluster with the fewest tenants, ties to the first declared', () => {
    const names = ['main', 'b', 'c'];
    expect(
      pickFewest(
        names,
        new Map([
          ['main', 3],
          ['b', 1],
          ['c', 1],
        ]),
      ),
    ).toBe('b');
    expect(
      pickFewest(
        names,
        new Map([
          ['main', 0],
          ['b', 0],
          ['c', 0],
        ]),
      ),
    ).toBe('main');
    expect(
      pickFewest(
        names,
        new Map([
          ['main', 5],
          ['b', 2],
        ]),
      ),
    ).toBe('c');
  });

  it('places a new tenant by the rule when no cluster is named', async () => {
    const placement = bed.t.container.resolve(TenantPlacement);
    const expected = pickFewest(['main', 'b'], await placement.counts());
    const slug = unique('ruled');
    const r = await bed.t.container
      .resolve(TenantImporter)
      .import({ format: 'tenant-import/1', tenant: { slug, name: 'Ruled', hosts: [`${slug}.test`] } }, { onProgress: () => {} });
    expect(r.cluster).toBe(expected);
  });
});

describe('/platform with two clusters', () => {
  it('creates a tenant on the cluster asked for, lists it with its cluster, and refuses an unknown cluster with 420', async () => {
    const slug = unique('onb');
    const created = await operator(bed.t)
      .post('/platform/tenants')
      .send({ slug, name: 'On B', hosts: [`${slug}.test`], cluster: 'b' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.tenants[0]).toMatchObject({ slug, cluster: 'b', schema_version: tenantMigrations.at(-1)!.name });
    expect((await operator(bed.t).get(`/platform/tenants/${slug}`)).body.tenants[0].cluster).toBe('b');
    const schemas = await b().raw('select 1 from pg_namespace where nspname = ?', [created.body.tenants[0].schema]);
    expect(schemas.rows).toHaveLength(1);
    // the tenant answers on its host, served from cluster b
    expect((await client(bed.t, `${slug}.test`).get('/api/configitems/cors.origins')).status).toBe(401);

    const bad = await operator(bed.t)
      .post('/platform/tenants')
      .send({ slug: unique('nowhere'), name: 'X', hosts: [`${unique('x')}.test`], cluster: 'nowhere' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(bad.body.message).toContain('cluster');

    const clusters = await operator(bed.t).get('/platform/clusters');
    expect(clusters.body.clusters.map((c: { name: string }) => c.name)).toEqual(['main', 'b']);
    expect(clusters.body.clusters[1].tenants).toBeGreaterThan(0);
  });
});

describe('spare schemas', () => {
  it('are renamed into new tenants, follow new migrations, and are never shared by two creators', async () => {
    const spares = bed.t.container.resolve(SpareSchemas);
    const before = (await listSpares(b())).length;
    expect(await spares.topUp('b', before + 4)).toBe(4);
    const made = await listSpares(b());
    expect(made).toHaveLength(before + 4);

    // a new migration reaches every spare
    const probe = { name: '999_spare_probe', up: async (trx: any) => void (await trx.schema.createTable('spare_probe', (t: any) => t.increments('id'))) };
    await migrateSpares(bed.t.container.resolve(CLUSTERS), [...tenantMigrations, probe], 2, () => {});
    for (const s of made) expect((await b().raw('select to_regclass(?) as r', [`${s}.spare_probe`])).rows[0].r).not.toBeNull();

    // four creators at once take four different spares
    const slugs = Array.from({ length: 4 }, () => unique('spared'));
    const lines: string[] = [];
    const importer = bed.t.container.resolve(TenantImporter);
    const results = await Promise.all(
      slugs.map((slug) =>
        importer.import(
          { format: 'tenant-import/1', tenant: { slug, name: 'Spared', hosts: [`${slug}.test`] } },
          { cluster: 'b', onProgress: (l) => lines.push(l) },
        ),
      ),
    );
    expect(lines.filter((l) => l.includes('(from a spare)'))).toHaveLength(4);
    expect(new Set(results.map((r) => r.schema)).size).toBe(4);
    for (const r of results) {
      const migrations = await b().withSchema(r.schema).table('schema_migrations').pluck('name');
      expect(migrations).toEqual(expect.arrayContaining(tenantMigrations.map((m) => m.name)));
    }
    expect(await listSpares(b())).toHaveLength(before);
  });

  it('a tenant made from a replayed spare serves logins, reads and writes, with its sequences and triggers', async () => {
    await bed.t.container.resolve(SpareSchemas).topUp('b', (await listSpares(b())).length + 1);
    const spares = (await listSpares(b())).length;
    const tenant = await importOn(bed.t, 'acme', 'b');
    expect((await listSpares(b())).length).toBe(spares - 1);
    const admin = await asAcme(bed.t, tenant.host, 'admin');
    expect((await admin.get('/api/person')).body.person[0].user_name).toBe('admin');
    const sent = await admin.post('/api/messages').send({ user_name: 'ola', title: 'from a spare', text: 'x', send_medium: 'email' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const put = await admin.put('/api/configitems/api.rate_limit.per_minute').send({ value: 633 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // the audit log's append-only trigger and function came with the spare
    expect(Number((await b().withSchema(tenant.schema).table('audit_log').count('* as n').first())!.n)).toBeGreaterThan(0);
    await expect(b().withSchema(tenant.schema).table('audit_log').delete()).rejects.toThrow(/append-only/);
  });

  it('bulk provisioning creates every valid tenant, names the bad ones, and uses spares first', async () => {
    const spares = bed.t.container.resolve(SpareSchemas);
    await spares.topUp('b', (await listSpares(b())).length + 3);
    const good = Array.from({ length: 6 }, () => unique('bulk')).map((slug) => ({ slug, name: `Bulk ${slug}`, hosts: [`${slug}.test`], cluster: 'b' }));
    const taken = { ...good[0], hosts: [`${unique('other')}.test`] };
    const r = await bed.t.container.resolve(BulkProvisioner).createMany([...good, taken], { concurrency: 3 });
    expect(r.created).toBe(6);
    expect(r.failed).toEqual([{ slug: taken.slug, error: expect.stringContaining('already exists') }]);
    expect(r.fromSpares).toBe(3);
    const listed = (await operator(bed.t).get('/platform/tenants')).body.tenants.filter((x: { slug: string }) => good.some((g) => g.slug === x.slug));
    expect(listed.map((x: { cluster: string }) => x.cluster)).toEqual(good.map(() => 'b'));
    const audit = await b().withSchema(listed[0].schema).table('audit_log').where({ type: 'operator.imported' }).count('* as n').first();
    expect(Number(audit!.n)).toBe(1);
  });
});

describe('npm run tenant with two clusters', () => {
  it('lists the clusters, moves a tenant with a progress display, and lists it on its new cluster', async () => {
    const slug = unique('cli');
    await bed.t.container
      .resolve(TenantImporter)
      .import({ format: 'tenant-import/1', tenant: { slug, name: 'Cli', hosts: [`${slug}.test`] } }, { cluster: 'main', onProgress: () => {} });
    const env = { DATABASE_URL: bed.mainUrl, TENANT_DATABASE_URLS: `b=${bed.b.url}` };
    const clusters = await cli('tenant', ['clusters'], env);
    expect(clusters.code, clusters.stderr).toBe(0);
    expect(clusters.stdout).toMatch(/^main\s+\d+\s+\d+$/m);
    expect(clusters.stdout).toMatch(/^b\s+\d+\s+\d+$/m);
    const moved = await cli('tenant', ['move', slug, '--to', 'b', '--drop-after', '0'], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`${slug} moved from main to b`);
    expect(moved.stderr).toContain('row counts of');
    expect(moved.stderr).toContain('writes paused');
    const list = await cli('tenant', ['list', '--json'], env);
    expect(JSON.parse(list.stdout).find((x: { slug: string }) => x.slug === slug).cluster).toBe('b');
    const again = await cli('tenant', ['move', slug, '--to', 'b'], env);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('already on cluster b')]);
  });
});
