import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/test-app';
import { competenceIdsByTitle } from '../competences/catalogue-ids';
import { acmeWithKarisManagers, type AcmeClient } from '../../people/persons/demo-refs';

// Manager-only registrations: never by a manager for themself, nor for a person who manages them.
let t: TestApp;
let ids: Record<string, number>;
let admin: AcmeClient, kari: AcmeClient, boss: AcmeClient;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, kari, boss } = await acmeWithKarisManagers(t));
  ids = await competenceIdsByTitle(admin);
});
afterAll(async () => t?.close());

const put = (c: AcmeClient, title: string, body: Record<string, unknown>) => c.put(`/api/personcompetences/${ids[title]}`).send(body);

describe('checklist items', () => {
  it('kari cannot override her own checklist item without action (403); boss, her manager, can (200)', async () => {
    const self = await put(kari, 'Daily walk-around check', {});
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ valid: false, errorcode: 403 });
    const byBoss = await put(boss, 'Daily walk-around check', { user_name: 'kari' });
    expect(byBoss.status, JSON.stringify(byBoss.body)).toBe(200);
    expect(byBoss.body.personcompetences[0]).toMatchObject({ user_name: 'kari', checked: true, override: true });
  });

  it('kari cannot check her own manager-checked item (403); boss can (200)', async () => {
    expect((await put(kari, 'Supervised driving, 2 hours', { action: 'on' })).status).toBe(403);
    expect((await put(boss, 'Supervised driving, 2 hours', { user_name: 'kari', action: 'on' })).status).toBe(200);
  });

  it('kari checks her own self-checked item with action (200), as any person may', async () => {
    expect((await put(kari, 'Daily walk-around check', { action: 'on' })).status).toBe(200);
  });

  it('kari cannot override a checklist item of boss, who manages her (403)', async () => {
    expect((await put(kari, 'Daily walk-around check', { user_name: 'boss' })).status).toBe(403);
    expect((await put(kari, 'Supervised driving, 2 hours', { user_name: 'boss', action: 'on' })).status).toBe(403);
  });
});

describe('courses and other manager-registered types', () => {
  it('kari cannot register a course as passed for herself (403); boss can register it for her (200)', async () => {
    expect((await put(kari, 'Leadership 101', { passed: 100 })).status).toBe(403);
    expect((await put(boss, 'Leadership 101', { user_name: 'kari', passed: 100 })).status).toBe(200);
  });

  it('kari registers nothing for boss, not even a formal competence (403); her own formal one she may (200)', async () => {
    expect((await put(kari, 'Leadership 101', { user_name: 'boss' })).status).toBe(403);
    expect((await put(kari, 'Welding certificate (EN ISO 9606)', { user_name: 'boss' })).status).toBe(403);
    expect((await put(kari, 'Welding certificate (EN ISO 9606)', { school: 'Oslo Tech' })).status).toBe(200);
  });

  it('kari still registers a course for ola, whom she manages (200)', async () => {
    expect((await put(kari, 'Leadership 101', { user_name: 'ola' })).status).toBe(200);
  });
});

describe('DELETE /api/personcompetences', () => {
  it('kari cannot remove her own course registration (403); the superuser can (200)', async () => {
    const url = `/api/personcompetences/${ids['HSE basic course']}`;
    expect((await kari.delete(url)).status).toBe(403);
    expect((await admin.delete(`${url}?user_name=kari`)).status).toBe(200);
  });

  it("kari cannot remove boss's registrations, even of a self-registered type (403)", async () => {
    await put(boss, 'Welding certificate (EN ISO 9606)', {});
    expect((await kari.delete(`/api/personcompetences/${ids['Welding certificate (EN ISO 9606)']}?user_name=boss`)).status).toBe(403);
    expect((await boss.delete(`/api/personcompetences/${ids['Welding certificate (EN ISO 9606)']}`)).status).toBe(200);
  });
});
