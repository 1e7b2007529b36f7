import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app';
import { demoTenantsWanted, seedDemoTenantsIfWanted } from '../../seeds/demo-tenants';
import { TenantStore } from '../../src/platform/tenant-scope/tenant-store';
import { loadEnv } from '../../src/platform/config/env';

describe('demo tenants only on request', () => {
  it('imports them for the embedded PostgreSQL or DEMO_TENANTS=1, not for DATABASE_URL alone or DEMO_TENANTS=0', () => {
    const url = 'postgres://u:p@db.example:5432/competence';
    expect(demoTenantsWanted(loadEnv({}))).toBe(true);
    expect(demoTenantsWanted(loadEnv({ DATABASE_URL: url }))).toBe(false);
    expect(demoTenantsWanted(loadEnv({ DATABASE_URL: url, DEMO_TENANTS: '1' }))).toBe(true);
    expect(demoTenantsWanted(loadEnv({ DEMO_TENANTS: '0' }))).toBe(false);
    // as example.env has it: empty means unset
    expect(demoTenantsWanted(loadEnv({ DATABASE_URL: url, DEMO_TENANTS: '' }))).toBe(false);
  });

  describe("npm start's seeding step against the test database", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(async () => t?.close());

    it('with DATABASE_URL set and DEMO_TENANTS unset creates no tenant and says how to get the demo', async () => {
      const env = loadEnv({ DATABASE_URL: inject('databaseUrl') });
      const said: string[] = [];
      expect(await seedDemoTenantsIfWanted(t.container, env, (m) => said.push(m))).toBe(false);
      const store = t.container.resolve(TenantStore);
      expect(await store.findIdBySlug('acme')).toBeNull();
      expect(await store.findIdBySlug('globex')).toBeNull();
      expect(said.join('\n')).toContain('DEMO_TENANTS=1');
    });
  });
});
