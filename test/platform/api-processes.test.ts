import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startLocalPostgres, startLocalRedisCluster, type LocalService } from '../../src/platform/dev/local-services';
import { startSmtpSink, waitFor } from '../messaging/messages/delivery-peers';
import { ACME_PASSWORDS } from '../support/login';
import { PRODUCT_NODE_FLAGS } from '../../src/platform/processes/node-flags';

/**
 * `npm start` with WEB_CONCURRENCY=2 on a PostgreSQL of its own and a 3-master Redis Cluster:
 * two API processes share the port, caches stay in step, a killed process is replaced, and the
 * worker process delivers mail from the clustered queues.
 */
let dir: string;
let pg: LocalService;
let cluster: Awaited<ReturnType<typeof startLocalRedisCluster>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let product: ChildProcess;
let port: number;
/** Every JSON log line the product wrote, in order. */
const lines: Array<Record<string, any>> = [];
const TOKEN = 'operator-token-for-the-test';
/** Requests this test sent to the acme tenant. */
let acmeCalls = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-processes-test-'));
  fs.chmodSync(dir, 0o755); // initdb runs as the postgres user
  [pg, cluster, smtp, port] = await Promise.all([
    startLocalPostgres({ dataDir: path.join(dir, 'pg'), persistent: false }),
    startLocalRedisCluster({ dir: path.join(dir, 'redis') }),
    startSmtpSink(),
    freePort(),
  ]);
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    WEB_CONCURRENCY: '2',
    DATABASE_URL: pg.url,
    REDIS_URL: '',
    REDIS_CLUSTER_NODES: cluster.nodes,
    QUEUE_REDIS_CLUSTER_NODES: cluster.nodes,
    SMTP_URL: smtp.url,
    DEMO_TENANTS: '1',
    DATA_DIR: path.join(dir, 'data'),
    LOG_LEVEL: 'info',
    PLATFORM_ADMIN_TOKEN: TOKEN,
    DATABASE_POOL_MAX: '5',
    // far beyond the test: only a pub/sub message can make a process see a change
    TENANT_CACHE_SECONDS: '3600',
  };
  product = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let rest = '';
  let stderr = '';
  product.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop()!;
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part));
      } catch {
        // not a log line
      }
    }
  });
  product.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await waitFor(
    'npm start to be ready',
    () => {
      if (product.exitCode !== null) throw new Error(`npm start exited with ${product.exitCode}: ${stderr}`);
      return lines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('ready:'));
    },
    100_000,
  );
}, 150_000);

afterAll(async () => {
  if (product && product.exitCode === null) {
    await new Promise<void>((resolve) => {
      product.once('exit', () => resolve());
      product.kill('SIGTERM');
    });
  }
  await smtp?.stop();
  await cluster?.stop();
  await pg?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  text: string;
  /** The API process that answered (from its request log line). */
  pid: number;
}

/** One request on a connection of its own, so node:cluster hands each to the next process. */
async function call(
  method: string,
  url: string,
  options: { cookie?: string; body?: unknown; host?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const requestId = randomUUID();
  const host = options.host ?? 'acme.localhost';
  if (host === 'acme.localhost') acmeCalls++;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const res = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent: false,
        headers: {
          ...options.headers,
          Host: host,
          'X-Request-Id': requestId,
          ...(options.cookie ? { Cookie: options.cookie } : {}),
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (r) => {
        let text = '';
        r.on('data', (c) => (text += c));
        r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  const logged = await waitFor(`the log line of ${requestId}`, () => lines.find((l) => l.req?.id === requestId), 5000);
  const json = String(res.headers['content-type']).startsWith('application/json');
  return { status: res.status, headers: res.headers, text: res.text, body: json ? JSON.parse(res.text) : undefined, pid: logged.pid };
}

const startedPids = () => lines.filter((l) => l.msg === 'API process started').map((l) => l.apiPid as number);

async function login(userName: string): Promise<string> {
  const res = await call('POST', '/api/login', { body: { user_name: userName, password: ACME_PASSWORDS[userName], login: 1 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return String(res.headers['set-cookie']!.find((c) => c.startsWith('tg-visit='))).split(';')[0];
}

describe('npm start with WEB_CONCURRENCY=2', () => {
  it('runs two API processes on one port; a session made on one works on the other', async () => {
    expect(new Set(startedPids()).size).toBe(2);
    const cookie = await login('admin');
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/api/person?limit=1', { cookie })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.pid))).toEqual(new Set(startedPids()));
  });

  it("starts its API processes and its worker process with the product's node flags", () => {
    const argsOf = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const workerProcess = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d) && fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(product.pid))
      .map(Number)
      .find((pid) => argsOf(pid).some((a) => a.endsWith('workers/main.ts')));
    expect(workerProcess).toBeDefined();
    for (const pid of [...startedPids(), workerProcess!]) expect(argsOf(pid)).toEqual(expect.arrayContaining([...PRODUCT_NODE_FLAGS]));
  });

  it('boots the worker process first, and each API process fills its tenant cache and opens its connections before it listens', () => {
    const at = (test: (l: Record<string, any>) => boolean) => lines.findIndex(test);
    const workersStarted = at((l) => l.msg === 'workers started');
    expect(workersStarted).toBeGreaterThanOrEqual(0);
    for (const pid of startedPids()) {
      const listening = at((l) => l.pid === pid && l.msg === 'API listening');
      const preloaded = lines.find((l) => l.pid === pid && l.msg === 'tenant cache preloaded, connections open');
      expect(listening).toBeGreaterThan(workersStarted);
      // the demo tenants (acme, globex), on the one cluster
      expect(preloaded, `process ${pid}`).toMatchObject({ tenants: 2, clusters: ['main'] });
      expect(lines.indexOf(preloaded!)).toBeLessThan(listening);
    }
  });

  it('a config item changed through one process is applied at once by the other', async () => {
    const cookie = await login('admin');
    const policy = async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/api/person?limit=1', { cookie })));
      return { policies: new Set(answers.map((a) => a.headers['ratelimit-policy'])), pids: new Set(answers.map((a) => a.pid)) };
    };
    // both processes hold the tenant, with its config, in their caches
    expect((await policy()).policies).toEqual(new Set(['"minute";q=1200;w=60']));
    const set = await call('PUT', '/api/configitems/api.rate_limit.per_minute', { cookie, body: { value: 900 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    // the change message reaches the other process within moments; the cache TTL is an hour
    await waitFor(
      'every process applies the new limit',
      async () => {
        const p = await policy();
        return p.pids.size === 2 && p.policies.size === 1 && p.policies.has('"minute";q=900;w=60');
      },
      5000,
    );
  });

  it('the worker process delivers a message through the queues on the Redis Cluster', async () => {
    const cookie = await login('admin');
    const sent = await call('POST', '/api/messages', {
      cookie,
      body: { user_name: 'ola', title: 'Two processes', text: 'Sent through WEB_CONCURRENCY=2.', send_medium: 'email' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const mail = await waitFor('the mail at the SMTP sink', () => smtp.mails.find((m) => m.headers.subject === 'Two processes'));
    expect(mail.rcptTo).toEqual(['ola@acme.example']);
  });

  it('/metrics answers for both processes, whichever takes the scrape', async () => {
    const scrapes = await Promise.all(
      Array.from({ length: 4 }, () => call('GET', '/metrics', { host: 'metrics.invalid', headers: { Authorization: `Bearer ${TOKEN}` } })),
    );
    expect(scrapes.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(scrapes.map((s) => s.pid)).size).toBe(2);
    for (const { text } of scrapes) {
      // every acme request of this test so far, though each process served only some of them
      expect(text).toMatch(new RegExp(`^tenant_http_requests_total\\{tenant="acme"\\} ${acmeCalls}$`, 'm'));
      // the platform pools of both processes (DATABASE_POOL_MAX=5 each)
      expect(text).toMatch(/^db_pool_max_connections\{pool="platform"\} 10$/m);
    }
  });

  it('a killed API process is replaced; sessions and the port carry on', async () => {
    const cookie = await login('kari');
    const [victim, survivor] = startedPids();
    process.kill(victim, 'SIGKILL');
    const replacement = await waitFor('a new API process', () => startedPids().find((p) => p !== victim && p !== survivor), 60_000);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/api/person?limit=1', { cookie })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.pid))).toEqual(new Set([survivor, replacement]));
    expect(lines.some((l) => l.msg === 'API process exited; starting another' && l.apiPid === victim && l.signal === 'SIGKILL')).toBe(true);
  });
});
