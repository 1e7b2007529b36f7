import { gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import request from 'supertest';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { inject } from 'vitest';
import type { TestApp } from '../../support/test-app';
import { assertMatchesContract } from '../../support/contract';

const ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI as the operator would (npm run tenant -- ...), against the test databases. */
export function cli(script: 'tenant' | 'migrate', args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'warn' };
  const connections = { DATABASE_URL: inject('databaseUrl'), REDIS_URL: inject('redisUrl') };
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(ROOT, `src/cli/${script}.ts`), ...args], { cwd: ROOT, env: { ...base, ...connections, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const OPERATOR_TOKEN = 'operator-token-0123456789abcdef';

/**
 * The operator API with the bearer token set (`token`: another one, or null for none); binary
 * answers come back as Buffers. Every answer is checked against the OpenAPI document.
 */
export function operator(t: TestApp, token: string | null = OPERATOR_TOKEN) {
  const agent = request(t.app);
  const call = (method: 'get' | 'post' | 'put' | 'delete', url: string) => {
    const r = agent[method](url);
    if (token !== null) r.set('Authorization', `Bearer ${token}`);
    return r.expect((res) => {
      // bytes() keeps a JSON answer (an error envelope) as a Buffer too
      const body = Buffer.isBuffer(res.body) && /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(res.body.toString()) : res.body;
      assertMatchesContract(method, url, { status: res.status, headers: res.headers, body });
    });
  };
  return {
    get: (url: string) => call('get', url),
    post: (url: string) => call('post', url),
    put: (url: string) => call('put', url),
    delete: (url: string) => call('delete', url),
    /** GET whose body is kept as bytes whatever its type. */
    bytes: (url: string) =>
      call('get', url)
        .buffer(true)
        .parse((res, done) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => done(null, Buffer.concat(parts)));
        }),
  };
}

/** Every entry of a tenant-archive/1 by name, in archive order. */
export async function readArchive(gz: Buffer): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  Readable.from([gunzipSync(gz)]).pipe(extract);
  for await (const entry of extract) {
    const parts: Buffer[] = [];
    for await (const p of entry) parts.push(p as Buffer);
    out.set(entry.header.name, Buffer.concat(parts));
  }
  return out;
}

/** A gzip'd tar of the given entries, for building broken archives. */
export async function writeArchive(entries: [string, Buffer][]): Promise<Buffer> {
  const { gzipSync } = await import('node:zlib');
  const pack = tar.pack();
  const parts: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    pack.on('data', (d) => parts.push(d as Buffer));
    pack.on('end', () => resolve());
  });
  for (const [name, data] of entries) pack.entry({ name, size: data.length }, data);
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(parts));
}

/** The rows of one table across its chunks, parsed. */
export function tableRows(archive: Map<string, Buffer>, table: string): Record<string, unknown>[] {
  return [...archive.entries()]
    .filter(([name]) => name.startsWith(`tables/${table}/`))
    .flatMap(([, data]) =>
      data
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
}
