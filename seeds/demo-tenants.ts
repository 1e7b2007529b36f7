import fs from 'node:fs';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { TenantImporter } from '../src/tenancy';
import { TenantStore } from '../src/platform/tenant-scope/tenant-store';

export const DEMO_DOCUMENTS = ['acme.json', 'globex.json'].map((f) => path.join(__dirname, f));

export function readDemoDocument(slug: 'acme' | 'globex'): any {
  return JSON.parse(fs.readFileSync(path.join(__dirname, `${slug}.json`), 'utf8'));
}

/**
 * Demo tenants (with published passwords) only on request: by default only when npm start runs
 * its own PostgreSQL, i.e. on a developer's machine; DEMO_TENANTS=1/0 decides explicitly.
 */
export function demoTenantsWanted(env: { DATABASE_URL?: string; DEMO_TENANTS?: boolean }): boolean {
  return env.DEMO_TENANTS ?? !env.DATABASE_URL;
}

/** What the start log says when no demo tenant is imported. */
export const NO_DEMO_MESSAGE =
  'demo tenants not imported (DATABASE_URL is set or DEMO_TENANTS=0); set DEMO_TENANTS=1 to import acme and globex, or create a tenant with npm run tenant -- create';

/** Imports the demo tenants that do not exist yet (idempotent). */
export async function seedDemoTenants(c: DependencyContainer, say: (m: string) => void = () => {}): Promise<void> {
  const store = c.resolve(TenantStore);
  const importer = c.resolve(TenantImporter);
  for (const file of DEMO_DOCUMENTS) {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (await store.findIdBySlug(doc.tenant.slug)) {
      say(`seed: tenant ${doc.tenant.slug} exists, skipped`);
      continue;
    }
    await importer.import(doc, { onProgress: say });
    say(`seed: tenant ${doc.tenant.slug} imported (hosts ${doc.tenant.hosts.join(', ')})`);
  }
}

/** npm start's seeding step: imports the demo tenants or says how to get them. */
export async function seedDemoTenantsIfWanted(
  c: DependencyContainer,
  env: { DATABASE_URL?: string; DEMO_TENANTS?: boolean },
  say: (m: string) => void,
): Promise<boolean> {
  if (!demoTenantsWanted(env)) {
    say(NO_DEMO_MESSAGE);
    return false;
  }
  await seedDemoTenants(c, say);
  return true;
}
