import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { Env, EnvError, loadEnv } from '../../src/platform/config/env';

describe('environment validation', () => {
  it('lists every bad variable by name', () => {
    expect(() => loadEnv({ PORT: 'abc', REDIS_URL: 'http://x', TRUST_PROXY: 'maybe' })).toThrow(EnvError);
    try {
      loadEnv({ PORT: 'abc', REDIS_URL: 'http://x', TRUST_PROXY: 'maybe' });
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toContain('PORT');
      expect(message).toContain('REDIS_URL');
      expect(message).toContain('TRUST_PROXY');
    }
  });

  it('applies the documented defaults', () => {
    const env = loadEnv({});
    expect(env).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info', TRUST_PROXY: 0, COOKIE_SAMESITE: 'lax', TENANT_HOST_CACHE_MAX: 10_000 });
    expect(env.DEMO_TENANTS).toBeUndefined();
  });

  it('TRUST_PROXY takes a hop count or a list of proxy addresses and CIDRs, never "trust all"', () => {
    expect(loadEnv({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadEnv({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(0);
    expect(loadEnv({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,loopback,fd00::/8' }).TRUST_PROXY).toEqual(['10.0.0.1', '192.168.0.0/16', 'loopback', 'fd00::/8']);
    for (const bad of ['true', 'yes', '10.0.0.0/33', 'proxy.example', '-1', '1.2.3.4/8/9']) {
      expect(() => loadEnv({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('stops the start command with a message naming the variable', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/main.ts')], {
      env: { ...process.env, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT');
  });
});

describe('config/example.env', () => {
  const text = fs.readFileSync(path.join(__dirname, '../../config/example.env'), 'utf8');
  const entries = Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

  it('names every variable the product reads, and nothing else; each is in the README table too', () => {
    expect(Object.keys(entries).sort()).toEqual(Object.keys(Env.shape).sort());
    for (const name of Object.keys(Env.shape)) if (name !== 'NODE_ENV') expect(readme, name).toContain(`| ${name} |`);
  });

  it('states the defaults: loaded as it is, it gives what no variables give', () => {
    expect(loadEnv(entries)).toEqual(loadEnv({}));
  });
});
