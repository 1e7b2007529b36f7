import fs from 'node:fs';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { TenantImporter } from '../src/tenants/tenant-importer';
import { TenantStore } from '../src/platform/tenancy/tenant-store';

export const DEMO_DOCUMENTS = ['acme.json', 'globex.json'].map((f) => path.join(__dirname, f));

export function readDemoDocument(slug: 'acme' | 'globex'): any {
  return JSON.parse(fs.readFileSync(path.join(__dirname, `${slug}.json`), 'utf8'));
}

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
