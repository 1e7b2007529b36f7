import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './archive-support';
import { client, createTestApp, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../support/login';
import { DEMO_DOCUMENTS } from '../../../seeds/demo-tenants';
import { tenantMigrations } from '../../../migrations/tenant';

const CURRENT_TENANT_VERSION = tenantMigrations[tenantMigrations.length - 1].name;

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenant-cli-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run tenant', () => {
  it('imports acme under another slug and host with progress, lists it, exports it and refuses to delete without the flag', async () => {
    const slug = `cli-${randomBytes(4).toString('hex')}`;
    const host = `${slug}.test`;
    const imported = await cli('tenant', ['import', DEMO_DOCUMENTS[0], '--slug', slug, '--host', host]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`${slug}: 7 persons`);
    expect(imported.stdout).toContain(`${slug}  "Acme Industries"  active  hosts: ${host}`);
    await loginCookie(t, host, 'admin', ACME_PASSWORDS.admin);

    const listed = await cli('tenant', ['list', '--json']);
    expect(JSON.parse(listed.stdout).find((x: any) => x.slug === slug)).toMatchObject({ hosts: [host], schema_version: CURRENT_TENANT_VERSION });

    const file = path.join(dir, `${slug}.json`);
    const exported = await cli('tenant', ['export', slug, '--out', file, '--format', 'tenant-import/1']);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(doc.tenant).toEqual({ slug, name: 'Acme Industries', hosts: [host] });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const refused = await cli('tenant', ['delete', slug]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--yes-delete-everything');
    expect((await client(t, host).get('/api/configitems/mail.from')).status).toBe(401);

    const deleted = await cli('tenant', ['delete', slug, '--yes-delete-everything']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toMatch(/redis-keys: [1-9]\d* Redis keys/);
    expect((await client(t, host).get('/api/configitems/mail.from')).status).toBe(404);
  });

  it('backs a tenant up as an archive, deletes it and restores it under the same slug with logins and files intact', async () => {
    const slug = `cli-${randomBytes(4).toString('hex')}`;
    const host = `${slug}.test`;
    expect((await cli('tenant', ['import', DEMO_DOCUMENTS[0], '--slug', slug, '--host', host])).code).toBe(0);
    const ola = client(t, host, await loginCookie(t, host, 'ola', ACME_PASSWORDS.ola));
    const up = await ola.post('/api/files').attach('file', Buffer.from('kept through a restore'), { filename: 'note.txt', contentType: 'text/plain' });
    expect(up.status, JSON.stringify(up.body)).toBe(200);

    const file = path.join(dir, `${slug}.tar.gz`);
    const exported = await cli('tenant', ['export', slug, '--out', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(new RegExp(`${slug}: persons: 7 rows`));
    expect(exported.stderr).toContain('1 files');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await cli('tenant', ['delete', slug, '--yes-delete-everything'])).stderr).toContain('files: 1 files');

    const restored = await cli('tenant', ['import', file]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(`${slug}: persons: 7 rows`);
    expect(restored.stdout).toContain(`${slug}  "Acme Industries"  active  hosts: ${host}`);
    const again = client(t, host, await loginCookie(t, host, 'ola', ACME_PASSWORDS.ola));
    const content = await again.get(`/api/files/${up.body.files[0].file_id}/content`);
    expect(content.status).toBe(200);
    expect(content.text).toBe('kept through a restore');
  });

  it('suspends and resumes, and names an unknown tenant', async () => {
    const slug = `cli-${randomBytes(4).toString('hex')}`;
    expect((await cli('tenant', ['create', slug, '--name', 'Cli Ltd', '--host', `${slug}.test`])).code).toBe(0);
    const suspended = await cli('tenant', ['suspend', slug]);
    expect(suspended.stdout).toContain('suspended');
    expect((await client(t, `${slug}.test`).get('/api/configitems/mail.from')).status).toBe(423);
    expect((await cli('tenant', ['resume', slug])).stdout).toContain('active');
    const unknown = await cli('tenant', ['suspend', 'no-such-tenant']);
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: tenant no-such-tenant not found\n' });
  });

  it('says that it needs DATABASE_URL and REDIS_URL, and where npm start runs them', async () => {
    const run = await cli('tenant', ['list'], { DATABASE_URL: '', REDIS_URL: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DATABASE_URL and REDIS_URL not set');
    expect(run.stderr).toContain('postgres://postgres:postgres@127.0.0.1:54329/competence');
    const migrate = await cli('migrate', [], { DATABASE_URL: '', REDIS_URL: '' });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toContain('redis://127.0.0.1:63799');
  });

  it('has --help on every command', async () => {
    for (const args of [['--help'], ['export', '--help'], ['hosts', 'add', '--help']]) {
      const run = await cli('tenant', args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: tenant/);
    }
  });
});
