import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { allRoutes } from '../../src/routes';
import type { RouteDefinition } from '../../src/platform/http/define-route';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../support/test-app';
import { ACME_PASSWORDS } from '../support/login';
import { baseline, routeParams, type FuzzParam } from '../support/fuzz-params';
import { PATH_BAD, SWEEP, Raw, badValue, enc, formPairs, problemWith, sendRaw, stringsOf, toJson } from '../support/fuzz-values';

/**
 * Walks the route table and sends every parameter bad values by query, form and JSON body,
 * as the superuser of a tenant of its own. Promise: never a 5xx, the envelope on every error,
 * no stack trace or SQL in a message. FUZZ_SEED=<n> repeats a run; FUZZ_RUNS=<n> batches of 8.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const BATCHES = Number(process.env.FUZZ_RUNS ?? 700);
const BATCH = 8;
const PLATFORM_TOKEN = 'fuzz-platform-token-0123456789';

type Transport = 'query' | 'form' | 'json';
interface Target {
  route: RouteDefinition;
  params: FuzzParam[];
}
interface FuzzCase {
  target: Target;
  param: FuzzParam;
  value: unknown;
  transport: Transport;
}

// Logging out would end the session the fuzzer works with; everything else runs.
const targets: Target[] = allRoutes
  .filter((r) => !(r.path === '/logout'))
  .map((route) => ({ route, params: [...routeParams(route), { path: ['no_such_parameter'], kind: 'string', inPath: false, required: false }] }));

let t: TestApp;
let acme: DemoTenant;
let server: http.Server;
let port: number;
let cookie = '';
let requests = 0;
const found = new Map<string, string>();
const serverErrors = new Set<string>();

async function login(): Promise<void> {
  const body = toJson({ user_name: 'admin', password: ACME_PASSWORDS.admin, login: 1 });
  const res = await sendRaw(port, { method: 'POST', path: '/api/login', headers: { Host: acme.host, 'Content-Type': 'application/json' }, body });
  expect(res.status, res.text).toBe(200);
  cookie = String(res.headers['set-cookie']?.find((c) => c.startsWith('tg-visit='))).split(';')[0];
}

function pathSegment(v: unknown): string {
  if (v instanceof Raw) return v.text;
  return enc(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
}

function buildRequest(c: FuzzCase) {
  const { route, params } = c.target;
  const input = baseline(params);
  const [head, sub] = c.param.path;
  if (sub !== undefined) input[head] = { ...(typeof input[head] === 'object' ? input[head] : {}), [sub]: c.value };
  else input[head] = c.value;
  const inPath = new Set(params.filter((p) => p.inPath).map((p) => p.path[0]));
  const path = `/api${route.path.replace(/:(\w+)/g, (_m, name: string) => pathSegment(input[name] ?? '1'))}`;
  for (const name of inPath) delete input[name];
  const method = route.method.toUpperCase();
  const pairs = Object.entries(input).flatMap(([k, v]) => formPairs(k, v));
  let transport: Transport = method === 'GET' || method === 'DELETE' ? 'query' : c.transport;
  // Node refuses request heads above 16 KiB (431, not ours to answer); long values go in a body.
  if (transport === 'query' && pairs.join('&').length > 12_000) transport = 'json';
  const headers: Record<string, string> = { Host: acme.host, Cookie: cookie };
  let url = path;
  let body: string | undefined;
  if (transport === 'query') url += pairs.length ? `?${pairs.join('&')}` : '';
  else if (transport === 'form') {
    body = pairs.join('&');
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else {
    body = toJson(input);
    headers['Content-Type'] = 'application/json';
  }
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  return { method, path: url, headers, body, label: `${method} ${route.path} ${c.param.path.join('.')} by ${transport}` };
}

async function run(c: FuzzCase): Promise<string | null> {
  const req = buildRequest(c);
  requests++;
  const res = await sendRaw(port, req);
  const problem = problemWith(res, stringsOf(c.value));
  if (problem) {
    const key = `${req.label}: ${problem.slice(0, 80)}`;
    if (!found.has(key)) found.set(key, `${req.label} value=${JSON.stringify(c.value)?.slice(0, 120)} -> ${problem}`);
  }
  if (res.status === 401 && !req.path.startsWith('/api/validate')) await ensureLoggedIn();
  return problem;
}

async function ensureLoggedIn(): Promise<void> {
  const me = await sendRaw(port, { method: 'GET', path: '/api/person', headers: { Host: acme.host, Cookie: cookie } });
  if (me.status === 401) await login();
}

async function inBatches(cases: FuzzCase[]): Promise<void> {
  for (let i = 0; i < cases.length; i += BATCH) await Promise.all(cases.slice(i, i + BATCH).map(run));
}

/** Outside the /api route table: the file download, the operator API (mounted on its own), the admin page and the auth headers. */
async function outsideDefineRoute(): Promise<void> {
  const urls = (bad: string) => [
    `/api/files/${bad}/content`,
    `/platform/tenants/${bad}`,
    `/platform/tenants/${bad}/export`,
    `/platform/tenants/x/hosts/${bad}`,
    `/admin?x=${bad}`,
  ];
  const headers = { Host: acme.host, Cookie: cookie, Authorization: `Bearer ${PLATFORM_TOKEN}` };
  for (const bad of PATH_BAD) {
    await Promise.all(
      urls(bad).map(async (path) => {
        requests++;
        const method = path.includes('/hosts/') ? 'DELETE' : 'GET';
        const problem = problemWith(await sendRaw(port, { method, path, headers }), [bad]);
        if (problem) found.set(`${method} ${path}`.slice(0, 120), `${method} ${path.slice(0, 120)} -> ${problem}`);
      }),
    );
    // A session cookie or SWT token is input too, checked before any route.
    const authHeaders: Record<string, string>[] = [
      { Cookie: `tg-visit=${bad}` },
      { Authorization: `SWT ${bad}` },
      { Authorization: `SWT username=${bad}&HMACSHA256=${bad}` },
    ];
    for (const h of authHeaders) {
      requests++;
      const problem = problemWith(await sendRaw(port, { method: 'GET', path: '/api/person', headers: { Host: acme.host, ...h } }), [bad]);
      if (problem) found.set(`header ${JSON.stringify(h)}`, `GET /api/person with ${JSON.stringify(h).slice(0, 120)} -> ${problem}`);
    }
  }
}

beforeAll(async () => {
  // Unhandled errors are logged at level error: their causes go into the report of a failing run.
  const errorLog = { write: (line: string) => void serverErrors.add(String(JSON.parse(line).err?.message ?? JSON.parse(line).msg).slice(0, 160)) };
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: PLATFORM_TOKEN }, pino({ level: 'error' }, errorLog));
  // >10,000 requests as one admin: the per-caller API limit would answer 429 long before the end.
  acme = await importDemoTenant(t, 'acme', (doc) => (doc.config['api.rate_limit.per_minute'] = null));
  server = http.createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  await login();
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await t?.close();
});

describe('fuzz: no bad input is ever a 500', () => {
  it('every route, every parameter, bad values by query, form and JSON: the envelope, never a 5xx, nothing leaked', async () => {
    const started = Date.now();
    // Sweep: every parameter meets every canonical bad value once, path parameters the bad paths.
    const sweep: FuzzCase[] = [];
    targets.forEach((target, ti) =>
      target.params.forEach((param, pi) => {
        const values = param.inPath ? [...SWEEP, ...PATH_BAD.map((s) => new Raw(s))] : SWEEP;
        values.forEach((value, vi) => sweep.push({ target, param, value, transport: (['query', 'form', 'json'] as const)[(ti + pi + vi) % 3] }));
      }),
    );
    await inBatches(sweep);
    await outsideDefineRoute();

    // Random phase: fast-check draws route, parameter, value and transport from the seed.
    const fuzzCase: fc.Arbitrary<FuzzCase> = fc.constantFrom(...targets).chain((target) =>
      fc.record({
        target: fc.constant(target),
        param: fc.constantFrom(...target.params),
        value: badValue,
        transport: fc.constantFrom<Transport>('query', 'form', 'json'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzCase, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const problems = await Promise.all(batch.map(run));
        return problems.every((p) => p === null) || process.env.FUZZ_COLLECT === '1';
      }),
      { seed: SEED, numRuns: BATCHES, endOnFailure: true },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`fuzz: seed ${SEED}, ${requests} requests (${sweep.length} sweep), ${seconds} s, ${found.size} problems\n`);
    if (found.size) {
      fs.mkdirSync('.test-results', { recursive: true });
      fs.writeFileSync('.test-results/fuzz-found.json', JSON.stringify({ serverErrors: [...serverErrors], found: [...found.values()] }, null, 1));
    }
    expect([...found.values()]).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(10_000);
  }, 600_000);
});
