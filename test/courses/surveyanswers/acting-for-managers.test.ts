import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type DemoTenant, type TestApp } from '../../support/test-app';
import { acmeWithKarisManagers, type AcmeClient } from '../../people/persons/demo-refs';
import { idOf } from '../events/events-support';

// Surveys and files for someone else: a manager acts only for persons they manage, never for their own manager.
let t: TestApp;
let acme: DemoTenant;
let kari: AcmeClient, boss: AcmeClient, vera: AcmeClient;
let satisfaction: number;

beforeAll(async () => {
  t = await createTestApp({ DATA_DIR: mkdtempSync(join(tmpdir(), 'acting-')) });
  ({ acme, kari, boss, vera } = await acmeWithKarisManagers(t));
  satisfaction = await idOf(t, acme, 'competences', { title: 'How satisfied are you with your onboarding?' });
});
afterAll(async () => t?.close());

const data = (value: string) => ({ items: [{ competence_id: satisfaction, value }] });

describe('survey answers of a manager above', () => {
  it('vera cannot answer for boss (403); boss answers for himself and for vera (200)', async () => {
    expect((await vera.post('/api/surveyanswer').send({ user_name: 'boss', data: data('1') })).status).toBe(403);
    expect((await boss.post('/api/surveyanswer').send({ data: data('5') })).status).toBe(200);
    expect((await boss.post('/api/surveyanswer').send({ user_name: 'vera', data: data('4') })).status).toBe(200);
  });

  it("vera cannot replace, lock or unlock boss's answer (403), but still reads it (200)", async () => {
    const created = await boss.post('/api/surveyanswer').send({ data: data('5') });
    const id = created.body.surveyanswer[0].surveyanswer_id;
    expect((await vera.put(`/api/surveyanswers/${id}`).send({ data: data('1') })).status).toBe(403);
    expect((await vera.put(`/api/surveyanswers/${id}/lock`)).status).toBe(403);
    // kari owns the survey: "admin for the competence" may lock whoever answered
    expect((await kari.put(`/api/surveyanswers/${id}/lock`)).status).toBe(200);
    expect((await vera.put(`/api/surveyanswers/${id}/unlock`)).status).toBe(403);
    expect((await vera.get(`/api/surveyanswer/${id}`)).status).toBe(200);
  });
});

describe('POST /api/files for a manager above', () => {
  it('vera cannot upload a file for boss (403); boss uploads one for vera (200)', async () => {
    const forBoss = await vera.post('/api/files').field('user_name', 'boss').attach('file', Buffer.from('x'), 'x.txt');
    expect(forBoss.status).toBe(403);
    expect(forBoss.body).toMatchObject({ valid: false, errorcode: 403 });
    const forVera = await boss.post('/api/files').field('user_name', 'vera').attach('file', Buffer.from('y'), 'y.txt');
    expect(forVera.status, JSON.stringify(forVera.body)).toBe(200);
  });
});
