import { KNEX } from '../../src/platform/tokens';
import type { DemoTenant, TestApp } from '../support/test-app';

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
