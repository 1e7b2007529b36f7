import { KNEX } from '../../../src/platform/tokens';
import { client, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie } from '../../support/login';

/** Database ids of a tenant's objects by their import-document ref (ids are not part of the fixture). */
export async function idsByRef(t: TestApp, tenant: DemoTenant, table: 'organisations' | 'roles' | 'competences' | 'events'): Promise<Record<string, number>> {
  const rows: { id: number; ref: string }[] = await t.container.resolve(KNEX).withSchema(tenant.schema).table(table).select('id', 'ref');
  return Object.fromEntries(rows.map((r) => [r.ref, r.id]));
}

/** Bracket-form body, as browsers and the spec send person_data[field]=value. */
export function form(fields: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

export const userNames = (body: { persons: { user_name: string }[] }) => body.persons.map((p) => p.user_name);

export const BOSS_PASSWORD = 'Boss-Manager-Pass-1';
export const VERA_PASSWORD = 'Vera-Manager-Pass-1';

/**
 * Adds managers kari must not act on as their manager: boss sits in Operations (kari's subtree) but
 * manages the whole company, so kari's; vera co-manages Operations with kari.
 */
export function addKarisManagers(doc: any): void {
  doc.persons.push(
    { user_name: 'boss', password: BOSS_PASSWORD, email: 'boss@acme.example', organisation: 'acme-ops', roles: ['ops-lead'], manages: ['acme'] },
    { user_name: 'vera', password: VERA_PASSWORD, email: 'vera@acme.example', organisation: 'acme-ops', roles: ['ops-lead'], manages: ['acme-ops'] },
  );
}

export type AcmeClient = Awaited<ReturnType<typeof asAcme>>;

/** A fresh acme with boss and vera (addKarisManagers), and clients logged in as admin, kari, boss and vera. */
export async function acmeWithKarisManagers(t: TestApp) {
  const acme = await importDemoTenant(t, 'acme', addKarisManagers);
  const as = async (userName: string, password: string) => client(t, acme.host, await loginCookie(t, acme.host, userName, password));
  const [admin, kari, boss, vera] = await Promise.all([
    asAcme(t, acme.host, 'admin'),
    asAcme(t, acme.host, 'kari'),
    as('boss', BOSS_PASSWORD),
    as('vera', VERA_PASSWORD),
  ]);
  return { acme, admin, kari, boss, vera };
}
