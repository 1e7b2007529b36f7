import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { startLocalRedisCluster } from '../../../../src/platform/dev/local-services';
import { REDIS } from '../../../../src/platform/tokens';
import { QUEUE_REDIS } from '../../../../src/platform/queue/job-definition';
import { isRedisCluster } from '../../../../src/platform/redis/redis-client';
import { client, type DemoTenant } from '../../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../../support/login';
import { ACME_SWT, inAnHour, swtToken } from '../../../identity/sso/swt-test-token';
import { startSmtpSink, waitFor } from '../../../messaging/messages/delivery-peers';
import { operator } from '../archive-support';
import { CLUSTERS } from '../../../../src/platform/clusters/clusters';
import { PrincipalCache } from '../../../../src/platform/auth/principal-cache';
import { TenantMover } from '../../../../src/tenancy/tenants/placement/tenant-mover';
import { importOn, startWorkersFor, useTwoClusters } from './second-cluster';

/**
 * The scale-out proof (issue 22): two embedded PostgreSQL clusters and a 3-master Redis Cluster
 * (sessions, rate limits, sign-on hashes, the outbox signal and the queues all on it), a tenant on
 * each PostgreSQL cluster, every kind of traffic on both, then one tenant moved to the other
 * cluster under a load of reads and writes. Printed: the write pause and the load's answers.
 * test/platform/redis-cluster.test.ts covers the Redis Cluster alone in more detail.
 */
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let redisCluster: Awaited<ReturnType<typeof startLocalRedisCluster>>;
let redisDir = '';
beforeAll(async () => {
  redisDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-out-redis-'));
  [smtp, redisCluster] = await Promise.all([startSmtpSink(), startLocalRedisCluster({ dir: redisDir })]);
});
// registered before useTwoClusters' hooks: after hooks run in reverse, so this one runs last, once the app has closed its clients
afterAll(async () => {
  await redisCluster?.stop();
  if (redisDir) fs.rmSync(redisDir, { recursive: true, force: true });
}, 60_000);
const bed = useTwoClusters(() => ({ SMTP_URL: smtp.url, REDIS_CLUSTER_NODES: redisCluster.nodes, QUEUE_REDIS_CLUSTER_NODES: redisCluster.nodes }));
let workers: Awaited<ReturnType<typeof startWorkersFor>>;
let onMain: DemoTenant & { cluster: string };
let onB: DemoTenant & { cluster: string };

beforeAll(async () => {
  const { t } = bed;
  onMain = await importOn(t, 'acme', 'main');
  onB = await importOn(t, 'acme', 'b');
  workers = await startWorkersFor(t.container, [onMain.tenantId, onB.tenantId]);
});
afterAll(async () => {
  await workers?.stop();
  await smtp?.stop();
});

const schemaOn = async (cluster: string, schema: string) => {
  const { rows } = await bed.t.container.resolve(CLUSTERS).admin(cluster).raw('select 1 from pg_namespace where nspname = ?', [schema]);
  return rows.length === 1;
};

describe('two PostgreSQL clusters', () => {
  it('keeps each tenant schema on its own cluster only, and lists the placement', async () => {
    expect([await schemaOn('main', onMain.schema), await schemaOn('b', onMain.schema)]).toEqual([true, false]);
    expect([await schemaOn('main', onB.schema), await schemaOn('b', onB.schema)]).toEqual([false, true]);
    const list = await operator(bed.t).get('/platform/tenants');
    const clusterOf = (slug: string) => list.body.tenants.find((x: { slug: string }) => x.slug === slug)?.cluster;
    expect([clusterOf(onMain.slug), clusterOf(onB.slug)]).toEqual(['main', 'b']);
    // the principal cache listens to both clusters' NOTIFY
    expect(bed.t.container.resolve(PrincipalCache).enabled).toBe(true);
    // sessions and queues are on the Redis Cluster
    expect([isRedisCluster(bed.t.container.resolve(REDIS)), isRedisCluster(bed.t.container.resolve(QUEUE_REDIS))]).toEqual([true, true]);
  });

  for (const which of ['main', 'b'] as const) {
    it(`serves sessions, SWT, sign-on, config items and messages on ${which}`, async () => {
      const tenant = which === 'main' ? onMain : onB;
      const t = bed.t;
      const cookie = await loginCookie(t, tenant.host, 'admin', ACME_PASSWORDS.admin);
      const admin = client(t, tenant.host, cookie);
      expect((await admin.get('/api/person')).body.person[0].user_name).toBe('admin');

      const token = swtToken(ACME_SWT.secret, { Issuer: ACME_SWT.issuer, ExpiresOn: inAnHour(), username: 'ola' });
      const swt = await client(t, tenant.host).get('/api/person').set('Authorization', `SWT ${token}`);
      expect([swt.status, swt.body.person?.[0]?.user_name]).toEqual([200, 'ola']);

      const login = await client(t, tenant.host).post('/api/login').send({ user_name: 'ola', password: ACME_PASSWORDS.ola, login: 1 });
      const signon = await client(t, tenant.host)
        .get('/api/validate')
        .query({ user_name: 'ola', hash: login.body.login[0].hash, forward_url: 'https://portal.acme.example/' })
        .redirects(0);
      expect([signon.status, signon.headers.location]).toEqual([302, 'https://portal.acme.example/']);

      const put = await admin.put('/api/configitems/api.rate_limit.per_minute').send({ value: which === 'main' ? 611 : 622 });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const audit = await t.container
        .resolve(CLUSTERS)
        .admin(which)
        .withSchema(tenant.schema)
        .table('audit_log')
        .where({ type: 'config.changed' })
        .count('* as n')
        .first();
      expect(Number(audit!.n)).toBeGreaterThan(0);

      const title = `hello from ${which} ${tenant.slug}`;
      const sent = await admin.post('/api/messages').send({ user_name: 'ola', title, text: 'x', send_medium: 'email' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      await waitFor(`the mail of ${which}`, () => smtp.mails.some((m) => m.headers.subject === title));
    });
  }
});

interface LoadFigures {
  reads: number;
  writesAcked: string[];
  paused: number;
  other5xx: string[];
  maxWriteGapMs: number;
}

describe('moving a tenant to the other cluster under load', () => {
  it('loses no acknowledged write, answers no 5xx but the write pause, and keeps sessions and queued mail working', async () => {
    const t = bed.t;
    const cookie = await loginCookie(t, onMain.host, 'admin', ACME_PASSWORDS.admin);
    const api = () => client(t, onMain.host, cookie);
    // The first test set 611 requests a minute to see a config item travel; the readers below go faster.
    expect((await api().put('/api/configitems/api.rate_limit.per_minute').send({ value: 1_000_000 })).status).toBe(200);
    const figures: LoadFigures = { reads: 0, writesAcked: [], paused: 0, other5xx: [], maxWriteGapMs: 0 };
    let stop = false;
    let n = 0;
    const writer = async () => {
      let lastAck = Date.now();
      while (!stop) {
        const title = `load ${n++}`;
        const r = await api().post('/api/messages').send({ user_name: 'ola', title, text: 'x', send_medium: 'email' });
        if (r.status === 200) {
          figures.writesAcked.push(title);
          figures.maxWriteGapMs = Math.max(figures.maxWriteGapMs, Date.now() - lastAck);
          lastAck = Date.now();
        } else if (r.status === 503 && /being moved/.test(r.body.message)) {
          expect(r.headers['retry-after']).toBe('1');
          figures.paused++;
          await new Promise((res) => setTimeout(res, 50));
        } else if (r.status >= 500) figures.other5xx.push(`POST ${r.status} ${r.body.message}`);
      }
    };
    const reader = async () => {
      while (!stop) {
        const r = await api().get('/api/person');
        if (r.status === 200) figures.reads++;
        else figures.other5xx.push(`GET ${r.status} ${r.body.message}`);
      }
    };
    const load = [writer(), writer(), reader(), reader()];
    await waitFor('some load before the move', () => figures.writesAcked.length >= 10);
    const moved = await operator(t).post(`/platform/tenants/${onMain.slug}/move`).send({ to: 'b', drop_after_seconds: 1 });
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await Promise.all(load);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.tenants[0].cluster).toBe('b');
    const pause = moved.body.move.write_pause_ms;
    process.stdout.write(
      `\n[scale-out] move of ${onMain.slug} main -> b: ${moved.body.move.rows} rows, ${moved.body.move.changed_rows} copied again, write pause ${pause} ms, ` +
        `${moved.body.move.seconds.toFixed(1)} s in all; load: ${figures.reads} reads, ${figures.writesAcked.length} acknowledged writes, ` +
        `${figures.paused} write-pause answers (503), longest gap between acknowledged writes ${figures.maxWriteGapMs} ms\n`,
    );
    expect(moved.body.progress.join('\n')).toContain('row counts of');
    expect(figures.other5xx).toEqual([]);

    // every acknowledged write is on the new cluster, and nothing is left on the old one
    const b = t.container.resolve(CLUSTERS).admin('b');
    const titles = await b.withSchema(onMain.schema).table('messages').whereIn('title', figures.writesAcked).pluck('title');
    expect(new Set(titles).size).toBe(figures.writesAcked.length);
    await waitFor('the old copy dropped', async () => !(await schemaOn('main', onMain.schema)), 10_000);
    // the session still works, writes go to b, and the queued mail of every acknowledged write arrives
    const after = await api().post('/api/messages').send({ user_name: 'ola', title: 'after the move', text: 'x', send_medium: 'email' });
    expect(after.status).toBe(200);
    expect(await b.withSchema(onMain.schema).table('messages').where({ title: 'after the move' }).first('id')).toBeTruthy();
    const wanted = new Set([...figures.writesAcked, 'after the move']);
    await waitFor('every acknowledged message mailed', () => [...wanted].every((w) => smtp.mails.some((m) => m.headers.subject === w)), 60_000);
    // the tenant on b was not touched
    expect((await client(t, onB.host, await loginCookie(t, onB.host, 'admin', ACME_PASSWORDS.admin)).get('/api/person')).status).toBe(200);
  });

  it('leaves the tenant where it was, serving, when the move fails', async () => {
    const t = bed.t;
    const tenant = await importOn(t, 'acme', 'main');
    // a write transaction that does not end keeps the move from ever locking the tables
    const holder = new Client({ connectionString: bed.mainUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query(`update ${holder.escapeIdentifier(tenant.schema)}.persons set firstname = firstname where user_name = 'ola'`);
    try {
      await expect(t.container.resolve(TenantMover).move(tenant.slug, 'b', { lockDeadlineMs: 300, onProgress: () => {} })).rejects.toThrow(/could not lock/);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    const summary = await operator(t).get(`/platform/tenants/${tenant.slug}`);
    expect(summary.body.tenants[0].cluster).toBe('main');
    expect(await schemaOn('b', tenant.schema)).toBe(false);
    const triggers = await t.container
      .resolve(CLUSTERS)
      .admin('main')
      .raw(
        "select count(*)::int as n from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace s on s.oid = c.relnamespace where s.nspname = ? and g.tgname like '%tenant_move%'",
        [tenant.schema],
      );
    expect(triggers.rows[0].n).toBe(0);
    const admin = client(t, tenant.host, await loginCookie(t, tenant.host, 'admin', ACME_PASSWORDS.admin));
    expect((await admin.post('/api/messages').send({ user_name: 'ola', title: 'still here', text: 'x', send_medium: 'email' })).status).toBe(200);
    const moves = await t.container
      .resolve(CLUSTERS)
      .admin('main')
      .withSchema('platform')
      .table('tenant_moves')
      .where({ tenant_id: tenant.tenantId })
      .select('state', 'error');
    // the mover cleaned up after itself: nothing is left for the sweeper
    expect(moves).toEqual([{ state: 'rolled_back', error: expect.stringContaining('could not lock') }]);
  });
});
