import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createGzip } from 'node:zlib';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { KNEX } from '../../../src/platform/tokens';
import { schemaNameForSlug } from '../../../src/platform/tenant-scope/tenant-db';
import { OPERATOR_TOKEN, operator, readArchive } from './archive-support';

/**
 * Issue 40 item 1: a tenant archive import is bounded. files/ entries are streamed to the file
 * store (an archive bomb of 100 MiB of zeros in ~100 KB costs no memory), and the gzip'd body,
 * the unpacked bytes, each entry and the number of entries are capped (ARCHIVE_IMPORT_MAX_*):
 * 413, and nothing is left behind (no tenant, no schema, no file, no half-written file).
 */
// Bounds well below what buffering the 100 MiB entry costs (before the fix: +185 MiB RSS, 100 MiB of
// Buffers), with room for what the rest of the test process holds meanwhile (seen: 39 MiB of Buffers).
const MiB = 1024 * 1024;
// large bodies on a shared, loaded machine: no timing is asserted, so give them time
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });
let t: TestApp;
let capped: TestApp;
let knex: Knex;
let acme: DemoTenant;
let base: [string, Buffer][];
const dataDir = mkdtempSync(join(tmpdir(), 'archive-limits-'));
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
let caps: { body: number; unpacked: number; entry: number; entries: number };

type Content = Buffer | { zeros: number };

/**
 * A gzip'd tar written as a stream: zeros are generated 64 KiB at a time, so building a bomb
 * never holds it in this process (which would hide the importer's own use of memory).
 */
async function pack(entries: [string, Content][]): Promise<Buffer> {
  const p = tar.pack();
  const gz = createGzip();
  const out: Buffer[] = [];
  gz.on('data', (d: Buffer) => out.push(d));
  const done = new Promise<void>((resolve, reject) => {
    gz.on('end', resolve);
    gz.on('error', reject);
  });
  p.pipe(gz);
  for (const [name, content] of entries) {
    if (Buffer.isBuffer(content)) {
      await new Promise<void>((resolve, reject) => p.entry({ name, size: content.length }, content, (err) => (err ? reject(err) : resolve())));
      continue;
    }
    await new Promise<void>((resolve, reject) => {
      const entry = p.entry({ name, size: content.zeros }, (err) => (err ? reject(err) : resolve()));
      const chunk = Buffer.alloc(64 * 1024);
      let left = content.zeros;
      const write = () => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!entry.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void entry.once('drain', write);
        }
        (entry as unknown as NodeJS.WritableStream).end();
      };
      write();
    });
  }
  p.finalize();
  await done;
  return Buffer.concat(out);
}

/** The demo tenant's archive with `extra` files before end.json; end.json counts them when `counted`. */
function withFiles(extra: [string, Content][], counted: boolean): [string, Content][] {
  const size = (c: Content) => (Buffer.isBuffer(c) ? c.length : c.zeros);
  return base
    .map(([name, data]): [string, Content][] => {
      if (name !== 'end.json') return [[name, data]];
      const end = JSON.parse(data.toString());
      if (counted) {
        end.files += extra.length;
        end.file_bytes += extra.reduce((n, [, c]) => n + size(c), 0);
      }
      return [...extra, ['end.json', Buffer.from(JSON.stringify(end))]];
    })
    .flat();
}

/** A full collection (vitest.config.mts runs the forks with --expose-gc), so that what is measured is memory held, not garbage. */
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/**
 * Peak growth of this process's memory while `fn` runs, sampled every 250 ms after a collection:
 * RSS, and the bytes held in Buffers (which, unlike RSS, falls again, so an earlier test's peak
 * cannot hide this one's).
 */
async function peakMemory<T>(fn: () => Promise<T>): Promise<{ result: T; rss: number; buffers: number }> {
  gc();
  const start = process.memoryUsage();
  const peak = { rss: start.rss, buffers: start.arrayBuffers };
  const sample = () => {
    gc();
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.buffers = Math.max(peak.buffers, m.arrayBuffers);
  };
  const timer = setInterval(sample, 250);
  try {
    const result = await fn();
    sample();
    const grew = { rss: peak.rss - start.rss, buffers: peak.buffers - start.arrayBuffers };
    process.stdout.write(`[archive-limits] RSS grew by ${Math.round(grew.rss / MiB)} MiB, Buffers held by ${Math.round(grew.buffers / MiB)} MiB\n`);
    return { result, ...grew };
  } finally {
    clearInterval(timer);
  }
}

function importAs(app: TestApp, body: Buffer) {
  const slug = unique('limits');
  return { slug, request: operator(app).post(`/platform/tenants/import?slug=${slug}&host=${slug}.test`).set('Content-Type', 'application/gzip').send(body) };
}

/** No tenant, no schema, no file store namespace (no file, no .part) of the slug. */
async function nothingLeftOf(app: TestApp, slug: string): Promise<void> {
  expect((await operator(app).get(`/platform/tenants/${slug}`)).status, slug).toBe(404);
  const schema = schemaNameForSlug(slug);
  expect((await knex.raw('select 1 from pg_namespace where nspname = ?', [schema])).rows, slug).toEqual([]);
  expect(existsSync(join(dataDir, 'files', schema)), `${slug}: files/${schema}`).toBe(false);
  const parts = (existsSync(join(dataDir, 'files')) ? readdirSync(join(dataDir, 'files'), { recursive: true }) : [])
    .map(String)
    .filter((f) => f.endsWith('.part'));
  expect(parts, slug).toEqual([]);
}

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN, DATA_DIR: dataDir });
  knex = t.container.resolve(KNEX);
  acme = await importDemoTenant(t, 'acme');
  const exported = await operator(t).bytes(`/platform/tenants/${acme.slug}/export`);
  expect(exported.status).toBe(200);
  base = [...(await readArchive(exported.body))];
  const unpacked = base.reduce((n, [, d]) => n + d.length, 0);
  expect(Math.max(...base.map(([, d]) => d.length))).toBeLessThan(MiB);
  caps = { body: (exported.body as Buffer).length + 300 * 1024, unpacked: unpacked + 3 * MiB, entry: MiB, entries: base.length + 10 };
  capped = await createTestApp({
    PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
    DATA_DIR: dataDir,
    ARCHIVE_IMPORT_MAX_BYTES: String(caps.body),
    ARCHIVE_IMPORT_MAX_UNPACKED_BYTES: String(caps.unpacked),
    ARCHIVE_IMPORT_MAX_ENTRY_BYTES: String(caps.entry),
    ARCHIVE_IMPORT_MAX_ENTRIES: String(caps.entries),
  });
});
afterAll(async () => {
  await capped?.close();
  await t?.close();
});

describe('archive bomb', () => {
  it("streams a 100 MiB file of zeros (100 KB gzip'd) to disk with flat memory, and refused at its end leaves nothing behind", async () => {
    const bomb = await pack(withFiles([['files/bomb', { zeros: 100 * MiB }]], false));
    expect(bomb.length).toBeLessThan(300 * 1024);
    const { slug, request } = importAs(t, bomb);
    const { result: res, rss, buffers } = await peakMemory(async () => request);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(res.body.message).toMatch(/incomplete: 1 files, end.json says 0/);
    // buffered whole, the importer grew by 200 MiB and more (the parts and their concatenation)
    expect(rss, 'RSS growth').toBeLessThan(128 * MiB);
    expect(buffers, 'Buffers held').toBeLessThan(64 * MiB);
    await nothingLeftOf(t, slug);
  });

  it('imports an archive holding a 100 MiB file with flat memory: the file is on disk, whole', async () => {
    const archive = await pack(withFiles([['files/large', { zeros: 100 * MiB }]], true));
    const { slug, request } = importAs(t, archive);
    const { result: res, rss, buffers } = await peakMemory(async () => request);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(rss, 'RSS growth').toBeLessThan(128 * MiB);
    expect(buffers, 'Buffers held').toBeLessThan(64 * MiB);
    expect(statSync(join(dataDir, 'files', schemaNameForSlug(slug), 'large')).size).toBe(100 * MiB);
  });
});

describe('ARCHIVE_IMPORT_MAX_* caps', () => {
  const cases: [string, () => Promise<Buffer>, RegExp][] = [
    [
      'one entry too large',
      () => pack(withFiles([['files/big', { zeros: 2 * MiB }]], true)),
      /entry files\/big unpacks to 2097152 bytes.*ARCHIVE_IMPORT_MAX_ENTRY_BYTES/,
    ],
    [
      'too many bytes unpacked in all',
      () =>
        pack(
          withFiles(
            [0, 1, 2, 3].map((i): [string, Content] => [`files/part${i}`, { zeros: Math.floor(0.9 * MiB) }]),
            true,
          ),
        ),
      /unpacks to more than \d+ bytes \(ARCHIVE_IMPORT_MAX_UNPACKED_BYTES\)/,
    ],
    [
      'too many entries',
      () =>
        pack(
          withFiles(
            Array.from({ length: 20 }, (_, i): [string, Content] => [`files/tiny${i}`, Buffer.from('x')]),
            true,
          ),
        ),
      /more than \d+ entries \(ARCHIVE_IMPORT_MAX_ENTRIES\)/,
    ],
    [
      "gzip'd body too large",
      () => pack(withFiles([['files/random', randomBytes(Math.floor(0.9 * MiB))]], true)),
      /larger than \d+ bytes \(ARCHIVE_IMPORT_MAX_BYTES\)/,
    ],
  ];
  for (const [what, make, message] of cases) {
    it(`refuses ${what} with 413 and leaves nothing behind`, async () => {
      const { slug, request } = importAs(capped, await make());
      const res = await request;
      expect(res.status, JSON.stringify(res.body)).toBe(413);
      expect(res.body).toMatchObject({ valid: false, errorcode: 413 });
      expect(res.body.message).toMatch(message);
      await nothingLeftOf(capped, slug);
    });
  }

  it('still imports an archive within every cap', async () => {
    const { slug, request } = importAs(capped, await pack(withFiles([['files/fits', { zeros: 0.5 * MiB }]], true)));
    const res = await request;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(statSync(join(dataDir, 'files', schemaNameForSlug(slug), 'fits')).size).toBe(0.5 * MiB);
  });

  it('refuses a link entry (420): only plain files are imported', async () => {
    const p = tar.pack();
    const parts: Buffer[] = [];
    p.on('data', (d) => parts.push(d as Buffer));
    const ended = new Promise<void>((r) => p.on('end', () => r()));
    for (const [name, data] of base.filter(([n]) => n !== 'end.json')) p.entry({ name, size: data.length }, data);
    p.entry({ name: 'files/passwd', type: 'symlink', linkname: '/etc/passwd' });
    p.finalize();
    await ended;
    const { gzipSync } = await import('node:zlib');
    const { slug, request } = importAs(t, gzipSync(Buffer.concat(parts)));
    const res = await request;
    expect(res.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(res.body.message).toMatch(/files\/passwd is a symlink, not a file/);
    await nothingLeftOf(t, slug);
  });
});
