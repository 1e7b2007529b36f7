import { expect } from 'vitest';
import { client, type TestApp } from './test-app';

/** Demo passwords from seeds/acme.json and seeds/globex.json. */
export const ACME_PASSWORDS: Record<string, string> = {
  admin: 'Acme-Admin-Pass-1',
  kari: 'Kari-Manager-Pass-1',
  ola: 'Ola-Worker-Pass-1',
  siri: 'Siri-Worker-Pass-1',
  per: 'Per-Office-Pass-1',
  expired: 'Expired-Pass-1',
  nils: 'Nils-Worker-Pass-1',
};
export const GLOBEX_PASSWORDS: Record<string, string> = {
  admin: 'Globex-Admin-Pass-1',
  homer: 'Homer-Operator-Pass-1',
};

/** Logs in and returns the Cookie header value for later calls. */
export async function loginCookie(t: TestApp, host: string, userName: string, password: string): Promise<string> {
  const res = await client(t, host).post('/api/login').send({ user_name: userName, password, login: 1 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('tg-visit='))!;
  return cookie.split(';')[0];
}

/** A client logged in as a demo user of an imported acme tenant. */
export async function asAcme(t: TestApp, host: string, userName: keyof typeof ACME_PASSWORDS) {
  return client(t, host, await loginCookie(t, host, userName, ACME_PASSWORDS[userName]));
}
