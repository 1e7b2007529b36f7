import { describe, expect, it } from 'vitest';
import { client, useAcmeApp } from '../support/test-app';
import { asAcme } from '../support/login';
import { TenantStore } from '../../src/platform/tenant-scope/tenant-store';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';

const bed = useAcmeApp();

describe('api.rate_limit.per_minute', () => {
  it('every answer carries RateLimit-Policy and RateLimit, errors included', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const ok = await admin.get('/api/person');
    expect(ok.headers['ratelimit-policy']).toBe('"minute";q=1200;w=60');
    expect(ok.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+$/);
    const missing = await admin.get('/api/persons/nobody-here');
    expect(missing.status).toBe(404);
    expect(missing.headers['ratelimit-policy']).toBe('"minute";q=1200;w=60');
    const anonymous = await client(bed.t, bed.acme.host).get('/api/person');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+$/);
  });

  it('past the limit: 429 in the envelope with Retry-After; per caller; a config change applies at once', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const ola = await asAcme(bed.t, bed.acme.host, 'ola');
    const set = await admin.put('/api/configitems/api.rate_limit.per_minute').send({ value: 3 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const seen: number[] = [];
    let last: any;
    for (let i = 0; i < 4; i++) {
      last = await admin.get('/api/person');
      seen.push(last.status);
    }
    expect(seen.slice(-1)).toEqual([429]);
    expect(last.body).toMatchObject({ valid: false, errorcode: 429 });
    expect(Number(last.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(last.headers['ratelimit-policy']).toBe('"minute";q=3;w=60');
    expect(last.headers.ratelimit).toMatch(/^"minute";r=0;t=\d+$/);
    if (process.env.SHOW_HEADERS) console.log('rate-limited answer:', last.status, last.headers, last.body);
    // ola is another caller with a window of her own.
    const own = await ola.get('/api/person');
    expect(own.status).toBe(200);
    expect(own.headers.ratelimit).toMatch(/^"minute";r=2;t=\d+$/);

    // Admin is locked out, so the limit is lifted the way an operator would: store and publish.
    await bed.t.container.resolve(TenantStore).setConfigItem(bed.acme.tenantId, 'api.rate_limit.per_minute', null, 'test');
    await bed.t.container.resolve(TenantResolver).publishChange(bed.acme.tenantId);
    await expectEventually(async () => (await admin.get('/api/person')).status === 200);
    // "no limit" is the platform's ceiling (API_RATE_LIMIT_CEILING_PER_MINUTE, default 6000): a tenant cannot lift it
    const free = await admin.get('/api/person');
    expect(free.headers['ratelimit-policy']).toBe('"minute";q=6000;w=60');
  });
});

async function expectEventually(check: () => Promise<boolean>) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition never met');
}
