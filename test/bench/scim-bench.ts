import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { GROUPS, type PerGroup, type Row } from './report';

/**
 * SCIM provisioning (issue 37): `users` POST /scim/v2/Users, as an identity provider's first sync
 * sends them (Entra ID's shape: userName, externalId, name, a work e-mail, the enterprise
 * employeeNumber), by `concurrency` workers on one small tenant with one access token of a
 * `scim`-only API client (created untimed through POST /api/apiclients and /oauth/token). Users
 * created per second over the whole run, p50/p99 of one create, CPU per group per user.
 */
export const SCIM = 'SCIM provisioning: POST /scim/v2/Users (users created per second)';

export interface ScimBench {
  base: string;
  /** A superuser's session on a small tenant. */
  session: { host: string; cookie: string };
  users: number;
  concurrency: number;
  rows: Row[];
  wanted(scenario: string): boolean;
  cpuWindow(): () => PerGroup;
  say(line: string): void;
}

interface Reply {
  status: number;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const h = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = http.request(url, { method, headers: h, agent }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

async function scimToken(b: ScimBench): Promise<string> {
  const { host, cookie } = b.session;
  const orgs = await send(`${b.base}/api/organisations?limit=1`, 'GET', { Host: host, Cookie: cookie });
  const organisationId = JSON.parse(orgs.text).organisations?.[0]?.organisation_id ?? JSON.parse(orgs.text).organisations?.[0]?.id;
  if (orgs.status !== 200 || !organisationId) throw new Error(`GET /api/organisations on ${host}: ${orgs.status} ${orgs.text.slice(0, 300)}`);
  const body = JSON.stringify({ apiclient_data: { name: 'bench scim', scopes: ['scim'], scim_default_organisation_id: organisationId } });
  const created = await send(`${b.base}/api/apiclients`, 'POST', { Host: host, Cookie: cookie, 'Content-Type': 'application/json' }, body);
  if (created.status !== 201) throw new Error(`POST /api/apiclients on ${host}: ${created.status} ${created.text}`);
  const c = JSON.parse(created.text).apiclients[0];
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(c.client_id)}:${encodeURIComponent(c.client_secret)}`).toString('base64')}`;
  const token = await send(
    `${b.base}/oauth/token`,
    'POST',
    { Host: host, Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
    'grant_type=client_credentials',
  );
  if (token.status !== 200) throw new Error(`POST /oauth/token on ${host}: ${token.status} ${token.text}`);
  return JSON.parse(token.text).access_token;
}

export async function scimScenario(b: ScimBench): Promise<void> {
  if (!b.wanted(SCIM) || b.users <= 0) return;
  const { host } = b.session;
  const headers = { Host: host, Authorization: `Bearer ${await scimToken(b)}`, 'Content-Type': 'application/scim+json' };
  // a fresh prefix per run: the bench may run again on the same data directory
  const run = randomBytes(3).toString('hex');
  const user = (i: number) =>
    JSON.stringify({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      userName: `scim-${run}-${i}@bench.example`,
      externalId: `${run}-${i}`,
      active: true,
      name: { givenName: `Given${i}`, familyName: `Family${i}` },
      emails: [{ primary: true, type: 'work', value: `scim-${run}-${i}@bench.example` }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: `B${i}` },
    });
  // untimed: the first code paths
  for (let i = 0; i < 3; i++) {
    const r = await send(`${b.base}/scim/v2/Users`, 'POST', headers, user(-1 - i));
    if (r.status !== 201) throw new Error(`POST /scim/v2/Users on ${host}: ${r.status} ${r.text.slice(0, 300)}`);
  }
  b.say(`${SCIM}: ${b.users} users, ${b.concurrency} at a time, on ${host}`);
  const times: number[] = [];
  let errors = 0;
  let next = 0;
  const endCpu = b.cpuWindow();
  const w0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(b.concurrency, b.users) }, async () => {
      while (next < b.users) {
        const i = next++;
        const t0 = performance.now();
        const r = await send(`${b.base}/scim/v2/Users`, 'POST', headers, user(i));
        times.push(performance.now() - t0);
        if (r.status !== 201) errors++;
      }
    }),
  );
  const wall = (performance.now() - w0) / 1000;
  const used = endCpu();
  const created = b.users - errors;
  const round = (x: number) => Math.round(x * 10) / 10;
  b.rows.push({
    scenario: SCIM,
    rps: round(created / wall),
    p50: round(quantile(times, 0.5)),
    p99: round(quantile(times, 0.99)),
    errors,
    cpu: Object.fromEntries(GROUPS.map((g) => [g, used[g] / wall])) as PerGroup,
    cpuMs: Object.fromEntries(GROUPS.map((g) => [g, (used[g] * 1000) / Math.max(1, created)])) as PerGroup,
    seconds: wall,
    note: `${created} of ${b.users} users created in ${wall.toFixed(1)} s by ${b.concurrency} concurrent POSTs (one token, one tenant); each: CreatePersonFlow (person, audit, person.created), the SCIM links; rps column = users/s`,
  });
  b.say(`${SCIM}: ${round(created / wall)} users/s, p50 ${round(quantile(times, 0.5))} ms, p99 ${round(quantile(times, 0.99))} ms, ${errors} errors`);
}
