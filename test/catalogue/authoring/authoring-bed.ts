import { afterAll, beforeAll, expect } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { KNEX } from '../../../src/platform/tokens';

export type Api = Awaited<ReturnType<typeof asAcme>>;

/**
 * The app (webhook targets on loopback allowed) and a fresh acme tenant in which per is a
 * superadmin and siri manages acme-ops-south (a second manager, who owns nothing), with clients
 * logged in as admin (superuser), kari (manager, owner of the HSE basic course), siri, ola, per.
 */
export function useAuthoringBed() {
  const bed = {} as { t: TestApp; acme: DemoTenant; admin: Api; kari: Api; siri: Api; ola: Api; nils: Api; per: Api; db: Knex };
  beforeAll(async () => {
    bed.t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' });
    bed.acme = await importDemoTenant(bed.t, 'acme', (doc) => {
      doc.persons.find((p: any) => p.user_name === 'per').superadmin = true;
      doc.persons.find((p: any) => p.user_name === 'siri').manages = ['acme-ops-south'];
    });
    const host = bed.acme.host;
    [bed.admin, bed.kari, bed.siri, bed.ola, bed.nils, bed.per] = await Promise.all(
      (['admin', 'kari', 'siri', 'ola', 'nils', 'per'] as const).map((u) => asAcme(bed.t, host, u)),
    );
    bed.db = bed.t.container.resolve<Knex>(KNEX);
  });
  afterAll(async () => bed.t?.close());
  return bed;
}

/** POST /api/competences as `api`, expecting 200; answers the full view. */
export async function createCompetence(api: Api, data: Record<string, unknown>): Promise<any> {
  const res = await api.post('/api/competences').send({ competence_data: data });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.competences[0];
}
