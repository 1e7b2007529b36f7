import type { Knex } from 'knex';
import { expect } from 'vitest';
import { KNEX } from '../../../src/platform/tokens';
import type { DemoTenant, TestApp } from '../../support/test-app';

/** unpdf (pdf.js) is ESM only: loaded by a dynamic import from these CommonJS-typed tests. */
export async function pdfText(bytes: Buffer): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: true });
  return text;
}

/** supertest's answer bytes for a non-JSON media type. */
export const binary = (res: any, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

/** The verification code printed in a certificate's text. */
export function codeIn(text: string): string {
  const m = /Verification code: ([A-Za-z0-9_-]{32})/.exec(text);
  expect(m, text).not.toBeNull();
  return m![1];
}

/**
 * A course competence with a fixed, high id in another tenant's schema (ids are per schema, so
 * the acme tenant has none by that id), registered for one of its persons with a diploma.
 */
export async function foreignCourse(t: TestApp, tenant: DemoTenant, userName: string, id = 987654): Promise<number> {
  const knex = t.container.resolve<Knex>(KNEX);
  const s = tenant.schema;
  await knex.withSchema(s).table('competences').insert({ id, title: 'Globex reactor safety', type: 'course', active: true, valid_months: 12 });
  const person = await knex.withSchema(s).table('persons').where('user_name', userName).first('id');
  await knex.withSchema(s).table('person_competences').insert({
    person_id: person.id,
    competence_id: id,
    passed: 100,
    date: '2026-01-05',
    valid_until: '2099-01-05',
    show_course_diploma: true,
  });
  return id;
}
