import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { asAcme } from '../support/login';
import { TenantStore } from '../../src/platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';

/** The platform's ceiling in this file: API_RATE_LIMIT_CEILING_PER_MINUTE. */
const CEILING = 500;

let t: TestApp;
let acme: DemoTenant;

beforeAll(async () => {
  t = await createTestApp({ API_RATE_LIMIT_CEILING_PER_MINUTE: String(CEILING) });
  acme = await importDemoTenant(t, 'acme');
});
afterAll(async () => t?.close());

type Client = Awaited<ReturnType<typeof asAcme>>;
const left = (res: { headers: Record<string, string> }) => Number(/r=(\d+)/.exec(res.headers.ratelimit)?.[1]);

/** The points a call took: what the window had left before minus after (ask a cheap call first). */
async function pointsOf(c: Client, path: string): Promise<number> {
  const before = left(await c.get('/api/person'));
  const res = await c.get(path);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  return before - left(res);
}

describe('costly calls cost more (issue 40 item 7)', () => {
  it("a call takes its route cost in points: exports, full views of lists, an organisation's competence level", async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    expect(await pointsOf(admin, '/api/person')).toBe(1);
    expect(await pointsOf(admin, '/api/persons?view=simple')).toBe(1);
    expect(await pointsOf(admin, '/api/persons?view=full')).toBe(5);
    expect(await pointsOf(admin, '/api/events?view=full')).toBe(5);
    expect(await pointsOf(admin, '/api/persons/ola/export')).toBe(10);
    expect(await pointsOf(admin, '/api/competencelevel?user_name=ola')).toBe(1);
    const org = (await admin.get('/api/organisations')).body.organisations[0].organisation_id;
    expect(await pointsOf(admin, `/api/competencelevel?organisation_id=${org}`)).toBe(10);
  });

  it('so a caller runs out after fewer costly calls: 429 with Retry-After', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const ola = await asAcme(t, acme.host, 'ola');
    expect((await admin.put('/api/configitems/api.rate_limit.per_minute').send({ value: 25 })).status).toBe(200);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push((await ola.get('/api/persons/ola/export')).status);
    // 10 + 10 fit in 25, the third export does not; 3 cheap calls would have
    expect(seen).toEqual([200, 200, 429]);
    const refused = await ola.get('/api/persons/ola/export');
    expect(refused.body).toMatchObject({ valid: false, errorcode: 429 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it("the platform's ceiling (API_RATE_LIMIT_CEILING_PER_MINUTE) is one a tenant's config cannot lift", async () => {
    const kari = await asAcme(t, acme.host, 'kari');
    // the admin above spent its window; the operator's way to set items
    const set = async (value: number | null) => {
      await t.container.resolve(TenantStore).setConfigItem(acme.tenantId, 'api.rate_limit.per_minute', value, 'test');
      await t.container.resolve(TenantResolver).publishChange(acme.tenantId);
    };
    await set(1_000_000);
    await expectEventually(async () => (await kari.get('/api/person')).headers['ratelimit-policy'] === `"minute";q=${CEILING};w=60`);
    await set(null);
    await expectEventually(async () => (await kari.get('/api/person')).headers['ratelimit-policy'] === `"minute";q=${CEILING};w=60`);
    const anonymous = await client(t, acme.host).get('/api/person');
    expect(anonymous.headers['ratelimit-policy']).toBe(`"minute";q=${CEILING};w=60`);
    await set(100);
    await expectEventually(async () => (await kari.get('/api/person')).headers['ratelimit-policy'] === '"minute";q=100;w=60');
    await set(1200);
  });

  it("the OpenAPI document shows each operation's cost (x-rate-limit-cost)", async () => {
    const doc = (await client(t, acme.host).get('/api/openapi.json')).body;
    expect(doc.paths['/api/person'].get['x-rate-limit-cost']).toBe(1);
    expect(doc.paths['/api/persons/{user_name}/export'].get['x-rate-limit-cost']).toBe(10);
    expect(doc.paths['/api/imports'].post['x-rate-limit-cost']).toBe(20);
    expect(doc.paths['/api/persons'].get).toMatchObject({ 'x-rate-limit-cost': 1, 'x-rate-limit-cost-when': { param: 'view', equals: 'full', cost: 5 } });
    expect(doc.paths['/api/competencelevel'].get).toMatchObject({ 'x-rate-limit-cost': 1, 'x-rate-limit-cost-when': { param: 'organisation_id', cost: 10 } });
    // the operator API has no rate limit, so no cost
    const platform = Object.entries(doc.paths).filter(([path]) => path.startsWith('/platform/'));
    expect(platform.length).toBeGreaterThan(0);
    for (const [, ops] of platform) for (const op of Object.values(ops as Record<string, any>)) expect(op['x-rate-limit-cost']).toBeUndefined();
  });
});

describe('the person export is paged (issue 40 item 7)', () => {
  it('every list section is one page; paging.more names the sections that go on; the pages together are the whole export', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    const ola = await asAcme(t, acme.host, 'ola');
    // a few more entries in ola's sections
    for (let i = 0; i < 3; i++) await admin.post('/api/messages').send({ user_name: 'ola', title: `Note ${i}`, text: 'hello' });
    const sections = ['personcompetences', 'personevents', 'surveyanswers', 'messages', 'files', 'auditlog'];
    const whole = (await ola.get('/api/persons/ola/export?limit=5000')).body.export[0];
    expect(whole.paging).toEqual({ limit: 5000, offset: 0, more: [] });
    expect(whole.messages.length).toBeGreaterThanOrEqual(3);

    const walked: Record<string, unknown[]> = Object.fromEntries(sections.map((s) => [s, []]));
    let offset = 0;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100);
      const res = await ola.get(`/api/persons/ola/export?limit=2&offset=${offset}`);
      expect(res.status).toBe(200);
      const page = res.body.export[0];
      expect(page.person.user_name).toBe('ola');
      for (const s of sections) {
        expect(page[s].length).toBeLessThanOrEqual(2);
        walked[s].push(...page[s]);
        if (page[s].length === 2 && whole[s].length > offset + 2) expect(page.paging.more).toContain(s);
      }
      if (page.paging.more.length === 0) break;
      offset += 2;
    }
    // audit entries are written by these very calls: compare what existed when the whole export was read
    for (const s of sections) expect(walked[s].slice(0, whole[s].length), s).toEqual(whole[s]);
    expect((await ola.get('/api/persons/ola/export?limit=5001')).body).toMatchObject({ errorcode: 420, parameter: 'limit' });
    expect((await ola.get('/api/persons/ola/export?limit=0')).body).toMatchObject({ errorcode: 420, parameter: 'limit' });
  });
});

describe('lists that were whole are paged (issue 40 item 7)', () => {
  it('GET /api/apiclients takes limit and offset like every list', async () => {
    const admin = await asAcme(t, acme.host, 'admin');
    for (let i = 0; i < 3; i++) {
      const res = await admin.post('/api/apiclients').send({ apiclient_data: { name: `Sync ${i}`, scopes: ['api.read'], run_as_user_name: 'admin' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const first = (await admin.get('/api/apiclients?limit=2')).body.apiclients;
    const rest = (await admin.get('/api/apiclients?limit=2&offset=2')).body.apiclients;
    expect(first).toHaveLength(2);
    expect(rest).toHaveLength(1);
    expect(new Set([...first, ...rest].map((c: any) => c.client_id)).size).toBe(3);
    expect((await admin.get('/api/identityproviders?limit=0')).body).toMatchObject({ errorcode: 420, parameter: 'limit' });
  });
});

async function expectEventually(check: () => Promise<boolean>) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition never met');
}
