import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createTestApp, type TestApp } from '../../support/test-app';
import { KNEX } from '../../../src/platform/tokens';
import { TenantImporter } from '../../../src/tenancy/tenants/tenant-importer';
import { hashPassword } from '../../../src/platform/auth/password-hasher';
import { BENCH_CONFIG, BENCH_PASSWORD } from '../../bench/generate-tenants';
import { dayTenant, loadDayTenant } from '../../bench/day-tenants';
import { DayActions, MIX, type DayTenantLogins } from '../../bench/day-actions';
import { prng } from '../../bench/generate-tenants';
import { runDayMix, sendOn } from '../../bench/day-mix';

/*
 * The short form of the benchmark's day mix (issue 42, test/bench/day-bench.ts): two API
 * processes' worth of the product (two containers, each with its own caches and change listener,
 * each on its own port) over a few day tenants, a few seconds of the mix with every acknowledged
 * write read back at once from the other one. No stale answer, no error. No timing is asserted.
 */
const TENANTS = 3;
let apps: TestApp[] = [];
let servers: http.Server[] = [];
let bases: string[] = [];
const tenants: DayTenantLogins[] = [];

beforeAll(async () => {
  apps = [await createTestApp(), await createTestApp()];
  servers = apps.map((a) => http.createServer(a.app).listen(0, '127.0.0.1'));
  await Promise.all(servers.map((s) => new Promise((r) => s.once('listening', r))));
  bases = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  const knex: Knex = apps[0].container.resolve(KNEX);
  const hash = await hashPassword(BENCH_PASSWORD);
  const agent = new http.Agent({ keepAlive: false });
  for (let i = 0; i < TENANTS; i++) {
    const slug = `day-${randomBytes(4).toString('hex')}`;
    const host = `${slug}.test`;
    const r = await apps[0].container.resolve(TenantImporter).import(dayTenant(i + 1, hash, 12, BENCH_CONFIG), { slug, hosts: [host], onProgress: () => {} });
    const login = async (user: string) => {
      const res = await sendOn(agent, bases[i % 2], {
        method: 'POST',
        path: '/api/login',
        headers: { Host: host },
        body: { user_name: user, password: BENCH_PASSWORD, login: 1 },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return `tg-visit=${res.body.login?.[0]?.session_id ?? res.body.session_id}`;
    };
    tenants.push({ ...(await loadDayTenant(knex, r.schema, host)), superCookie: await login('user'), sessions: { u1: await login('u1') } });
  }
});
afterAll(async () => {
  for (const s of servers) s.close();
  for (const a of apps) await a.close();
});

describe('day mix, short form', () => {
  it('every acknowledged write reads back from the other process at once: no stale answer, no error', async () => {
    // a shared test machine may be slow: generous timeouts, no timing asserted
    const r = await runDayMix({ bases, tenants, rate: 60, seconds: 4, seed: 7, timeoutMs: 60_000 });
    // the next test starts from the state the mix left
    for (const t of tenants) Object.assign(t, r.state[t.host]);
    if (process.env.DAY_MIX_PRINT) console.log(JSON.stringify(r, null, 1));
    const errors = r.classes.reduce((s, c) => s + c.errors, 0);
    expect(r.errorExamples, 'errors').toEqual([]);
    expect(errors).toBe(0);
    expect(r.checks.examples, 'stale or failed read-backs').toEqual([]);
    expect(r.checks.stale).toBe(0);
    expect(r.checks.errors).toBe(0);
    // the mix did run: every class drawn, writes read back
    expect(r.classes.length).toBeGreaterThanOrEqual(12);
    expect(r.checks.count).toBeGreaterThan(20);
  }, 300_000);

  it("the checker tells the old state from the new: a write's read-backs fail before it and all pass after it", async () => {
    const actions = new DayActions(tenants, prng(11));
    const agent = new http.Agent({ keepAlive: true });
    let judged = 0;
    for (const [cls, kind] of MIX) {
      if (kind !== 'write') continue;
      for (let i = 0; i < 2; i++) {
        const a = actions.next(cls);
        // the read-backs as they will be judged after the write (after() moves the model on)
        const checks = a.after!({});
        // each write's read-backs together tell before from after (one of them may be a list the
        // write leaves as it was: a registration of a competence the person's role does not require)
        const before = await Promise.all(checks.map((c) => sendOn(agent, bases[1], c.req, 60_000)));
        expect(before.map((b) => b.status)).toEqual(checks.map(() => 200));
        expect(
          checks.some((c, k) => !c.shows(before[k].status, before[k].body)),
          `${cls}: some read-back shows the old state before the write`,
        ).toBe(true);
        const w = await sendOn(agent, bases[0], a.req, 60_000);
        expect(w.status, `${cls}: ${JSON.stringify(w.body)}`).toBeLessThan(300);
        for (const c of checks) {
          const after = await sendOn(agent, bases[1], c.req, 60_000);
          expect(c.shows(after.status, after.body), `${cls}: ${c.what} after the write`).toBe(true);
          judged++;
        }
      }
    }
    agent.destroy();
    expect(judged).toBeGreaterThan(20);
  }, 300_000);
});
