import http from 'node:http';
import { startTestOp } from '../identity/sso/oidc-test-provider';
import type { Load } from './load-runner';
import { GROUPS, type PerGroup, type Row } from './report';

/**
 * The identity rows (issue 37), right after GET /api/person with a session and with SWT:
 *  - POST /oauth/token (client_credentials, client_secret_basic) over API clients of every small
 *    tenant (created through POST /api/apiclients with the tenant's superuser session, untimed).
 *    Several clients per tenant when there are few tenants: the login limits count every attempt
 *    per client and address before the secret is checked (5 in flight would be refused), and the
 *    load comes from one address.
 *  - GET /api/person with a Bearer token of each small tenant's client (run as the same person the
 *    session row reads), to set beside the session and SWT rows.
 *  - OIDC sign-in round trip: `rounds` sequential full sign-ins on one small tenant against a real
 *    OpenID provider (oidc-provider, test/identity/sso/oidc-test-provider.ts) on loopback in the
 *    bench process: GET /api/sso/[id]/login (302) → the provider's authorize, interaction and
 *    redirect back → GET /api/sso/[id]/callback (code exchange, ID token checks, the session: 302
 *    with tg-visit). p50/p99 of the whole and of our two legs. The API needs
 *    IDENTITY_PROVIDERS_ALLOW_HTTP=1 (the provider is plain http on loopback).
 */
export const TOKEN = 'POST /oauth/token (client_credentials), all tenants';
export const BEARER = 'GET /api/person, Bearer (client credentials), all tenants';
export const OIDC = 'OIDC sign-in round trip (login → provider → callback → session)';
export const OIDC_LOGIN = 'OIDC sign-in, our leg 1: GET /api/sso/[id]/login';
export const OIDC_CALLBACK = 'OIDC sign-in, our leg 2: GET /api/sso/[id]/callback';

export interface IdentityBench {
  base: string;
  /** A superuser's session on each small tenant (the bench's logins as `user`). */
  sessions: { host: string; cookie: string }[];
  /** Whose e-mail the OIDC sign-ins name (a person of sessions[0]'s tenant). */
  signInEmail: (host: string) => string;
  connections: number;
  rounds: number;
  rows: Row[];
  wanted(scenario: string): boolean;
  measure(scenario: string, load: Load): Promise<Row | null>;
  /** Starts a CPU window over the four groups; the function returned ends it (CPU seconds per group). */
  cpuWindow(): () => PerGroup;
  say(line: string): void;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(url: string, options: { method?: string; headers: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = options.body === undefined ? options.headers : { ...options.headers, 'Content-Length': String(Buffer.byteLength(options.body)) };
    const req = http.request(url, { method: options.method ?? 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The smallest latency with q of them at or below it (as load-worker.ts reads autocannon's). */
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const json = (host: string, cookie: string) => ({ Host: host, Cookie: cookie, 'Content-Type': 'application/json' });

async function createClient(base: string, host: string, cookie: string, name: string): Promise<{ id: string; secret: string }> {
  const body = JSON.stringify({ apiclient_data: { name, scopes: ['api.read'], run_as_user_name: 'user' } });
  const r = await send(`${base}/api/apiclients`, { method: 'POST', headers: json(host, cookie), body });
  if (r.status !== 201) throw new Error(`POST /api/apiclients on ${host}: ${r.status} ${r.text}`);
  const c = JSON.parse(r.text).apiclients[0];
  return { id: c.client_id, secret: c.client_secret };
}

const basic = (c: { id: string; secret: string }) => `Basic ${Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64')}`;
const TOKEN_BODY = 'grant_type=client_credentials';

async function tokenOf(base: string, host: string, c: { id: string; secret: string }): Promise<string> {
  const r = await send(`${base}/oauth/token`, {
    method: 'POST',
    headers: { Host: host, Authorization: basic(c), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: TOKEN_BODY,
  });
  if (r.status !== 200) throw new Error(`POST /oauth/token on ${host}: ${r.status} ${r.text}`);
  return JSON.parse(r.text).access_token;
}

async function bounded<T>(items: T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}

export async function identityScenarios(b: IdentityBench): Promise<void> {
  if (b.wanted(TOKEN) || b.wanted(BEARER)) {
    // at least 2 clients per connection over all tenants: at most a few attempts of one client in flight
    const perTenant = Math.max(1, Math.ceil((2 * b.connections) / b.sessions.length));
    const clients: { host: string; id: string; secret: string }[] = [];
    b.say(`creating ${perTenant * b.sessions.length} API clients (${perTenant} per small tenant)`);
    await bounded(b.sessions, 8, async ({ host, cookie }) => {
      for (let k = 0; k < perTenant; k++) clients.push({ host, ...(await createClient(b.base, host, cookie, `bench ${k}`)) });
    });
    if (b.wanted(TOKEN)) {
      const requests = clients.map((c) => ({
        method: 'POST',
        path: '/oauth/token',
        headers: { Host: c.host, Authorization: basic(c), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: TOKEN_BODY,
      }));
      await b.measure(TOKEN, { url: b.base, requests });
    }
    if (b.wanted(BEARER)) {
      // one client per tenant, as the session row has one session per tenant
      const first = new Map<string, { id: string; secret: string }>();
      for (const c of clients) if (!first.has(c.host)) first.set(c.host, c);
      const requests: Load['requests'] = [];
      await bounded([...first], 8, async ([host, c]) => {
        requests.push({ method: 'GET', path: '/api/person', headers: { Host: host, Authorization: `Bearer ${await tokenOf(b.base, host, c)}` } });
      });
      const check = await send(`${b.base}/api/person`, { headers: requests[0].headers! });
      if (check.status !== 200 || JSON.parse(check.text).person?.[0]?.user_name !== 'user')
        throw new Error(`GET /api/person with a Bearer token: ${check.status} ${check.text.slice(0, 300)}`);
      await b.measure(BEARER, { url: b.base, requests });
    }
  }
  if (b.wanted(OIDC) || b.wanted(OIDC_LOGIN) || b.wanted(OIDC_CALLBACK)) await oidcRoundTrips(b);
}

async function oidcRoundTrips(b: IdentityBench): Promise<void> {
  const { host, cookie } = b.sessions[0];
  const op = await startTestOp();
  try {
    const secret = 'bench-op-client-secret-0123456789abcdef';
    const body = JSON.stringify({
      identityprovider_data: { name: 'Bench OP', type: 'oidc', issuer: op.issuer, client_id: 'bench-app', client_secret: secret },
    });
    const created = await send(`${b.base}/api/identityproviders`, { method: 'POST', headers: json(host, cookie), body });
    if (created.status !== 201) throw new Error(`POST /api/identityproviders on ${host}: ${created.status} ${created.text}`);
    const providerId: string = JSON.parse(created.text).identityproviders[0].identityprovider_id;
    op.register([{ client_id: 'bench-app', client_secret: secret, redirect_uris: [`https://${host}/api/sso/${providerId}/callback`] }]);
    op.signInAs({ sub: 'bench-user', email: b.signInEmail(host) });

    const signIn = async () => {
      const t0 = performance.now();
      const start = await send(`${b.base}/api/sso/${providerId}/login`, { headers: { Host: host } });
      const t1 = performance.now();
      if (start.status !== 302 || !start.headers.location) throw new Error(`GET /api/sso/${providerId}/login: ${start.status} ${start.text}`);
      const back = await op.authorize(start.headers.location);
      const t2 = performance.now();
      const done = await send(`${b.base}${back.pathname}${back.search}`, { headers: { Host: host } });
      const t3 = performance.now();
      const session = done.headers['set-cookie']?.find((c) => c.startsWith('tg-visit='))?.split(';')[0];
      if (done.status !== 302 || !session) throw new Error(`GET ${back.pathname}: ${done.status} ${done.text}`);
      return { total: t3 - t0, login: t1 - t0, provider: t2 - t1, callback: t3 - t2, session };
    };
    // untimed: discovery (kept 5 minutes per process), the first code paths; the session reads the person
    for (let i = 0; i < 3; i++) {
      const { session } = await signIn();
      if (i > 0) continue;
      const me = await send(`${b.base}/api/person`, { headers: { Host: host, Cookie: session } });
      if (me.status !== 200 || JSON.parse(me.text).person?.[0]?.user_name !== 'user')
        throw new Error(`GET /api/person after the OIDC sign-in: ${me.status} ${me.text.slice(0, 300)}`);
    }
    const times: { total: number; login: number; provider: number; callback: number }[] = [];
    const endCpu = b.cpuWindow();
    const own0 = process.cpuUsage();
    const w0 = performance.now();
    for (let i = 0; i < b.rounds; i++) times.push(await signIn());
    const wall = (performance.now() - w0) / 1000;
    const used = endCpu();
    const own = process.cpuUsage(own0);
    const perSignIn = Object.fromEntries(GROUPS.map((g) => [g, (used[g] * 1000) / b.rounds])) as PerGroup;
    const cpu = Object.fromEntries(GROUPS.map((g) => [g, used[g] / wall])) as PerGroup;
    const of = (k: 'total' | 'login' | 'provider' | 'callback') => times.map((t) => t[k]);
    const q = (k: 'total' | 'login' | 'provider' | 'callback', p: number) => Math.round(quantile(of(k), p) * 10) / 10;
    const benchMs = (own.user + own.system) / 1000 / b.rounds;
    b.rows.push({
      scenario: OIDC,
      p50: q('total', 0.5),
      p99: q('total', 0.99),
      errors: 0,
      cpu,
      cpuMs: perSignIn,
      seconds: wall,
      note:
        `${b.rounds} sequential sign-ins on ${host} (${(b.rounds / wall).toFixed(1)}/s), each to a 302 with tg-visit; the provider's part ` +
        `(authorize, interaction, redirect back: oidc-provider in the bench process) p50 ${q('provider', 0.5)} / p99 ${q('provider', 0.99)} ms; ` +
        `CPU ms per sign-in: the four groups as the columns, the bench process (provider + driver) ${benchMs.toFixed(2)}`,
    });
    b.rows.push({
      scenario: OIDC_LOGIN,
      p50: q('login', 0.5),
      p99: q('login', 0.99),
      errors: 0,
      note: '302 to the provider: state, nonce and PKCE verifier into Redis, the authorization URL',
    });
    b.rows.push({
      scenario: OIDC_CALLBACK,
      p50: q('callback', 0.5),
      p99: q('callback', 0.99),
      errors: 0,
      note: "302 with tg-visit: the state, the code exchange at the provider's token endpoint, the ID token's checks, the person, the session",
    });
    b.say(
      `${OIDC}: p50 ${q('total', 0.5)} ms, p99 ${q('total', 0.99)} ms; login p50 ${q('login', 0.5)} / p99 ${q('login', 0.99)}; callback p50 ${q('callback', 0.5)} / p99 ${q('callback', 0.99)}; provider p50 ${q('provider', 0.5)}`,
    );
  } finally {
    // the provider's server waits for kept-alive connections; do not hold the run for them
    await Promise.race([op.close(), new Promise((r) => setTimeout(r, 2000))]);
  }
}
