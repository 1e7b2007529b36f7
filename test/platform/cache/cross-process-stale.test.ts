import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS } from '../../support/login';
import { PrincipalCache } from '../../../src/platform/auth/principal-cache';
import { sendOn } from '../../bench/day-mix';

/*
 * Two API processes (two containers, each with its own caches and change listener, on ports of their
 * own). A write acknowledged by one must be seen at once by the other, even when the other's
 * tenant_data_changed notification arrives late (a busy machine, a slow listener): found by the
 * benchmark's day-mix checker (issue 42), which read a person back from the other process right after
 * PUT /api/persons/[user_name] and got the old last name from its cache.
 */
let a: TestApp;
let b: TestApp;
let servers: http.Server[] = [];
let bases: string[] = [];
let acme: DemoTenant;
const agent = new http.Agent({ keepAlive: true });

beforeAll(async () => {
  [a, b] = [await createTestApp(), await createTestApp()];
  servers = [a, b].map((x) => http.createServer(x.app).listen(0, '127.0.0.1'));
  await Promise.all(servers.map((s) => new Promise((r) => s.once('listening', r))));
  bases = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  acme = await importDemoTenant(a, 'acme');
});
afterAll(async () => {
  agent.destroy();
  for (const s of servers) s.close();
  await a?.close();
  await b?.close();
});

describe('an acknowledged write, read from the other process at once', () => {
  it('is seen although that process has not heard the change notification yet', async () => {
    const login = await sendOn(agent, bases[0], {
      method: 'POST',
      path: '/api/login',
      headers: { Host: acme.host },
      body: { user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 },
    });
    expect(login.status).toBe(200);
    const H = { Host: acme.host, Cookie: `tg-visit=${login.body.login[0].session_id}` };
    // b's notifications arrive late: held back until the test lets them through
    const versions = b.container.resolve(PrincipalCache) as unknown as { bumpData(schema: string): void };
    const bump = versions.bumpData.bind(versions);
    const held: string[] = [];
    versions.bumpData = (schema: string) => void held.push(schema);
    try {
      const before = await sendOn(agent, bases[1], { method: 'GET', path: '/api/persons/ola', headers: H });
      expect(before.status).toBe(200);
      for (const lastname of ['Late-1', 'Late-2']) {
        const put = await sendOn(agent, bases[0], { method: 'PUT', path: '/api/persons/ola', headers: H, body: { person_data: { lastname } } });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
        const after = await sendOn(agent, bases[1], { method: 'GET', path: '/api/persons/ola', headers: H });
        expect(after.body.persons[0].lastname).toBe(lastname);
        const list = await sendOn(agent, bases[1], {
          method: 'GET',
          path: `/api/persons?organisation_id=${before.body.persons[0].organisation_id ?? before.body.persons[0].organisation?.id}&limit=100`,
          headers: H,
        });
        expect(list.status).toBe(200);
        expect(list.body.persons.find((p: { user_name: string }) => p.user_name === 'ola')?.lastname).toBe(lastname);
      }
    } finally {
      versions.bumpData = bump;
      for (const s of held) bump(s);
    }
  });
});
