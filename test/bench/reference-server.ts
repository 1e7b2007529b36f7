import express from 'express';
import pg from 'pg';
import { Redis } from 'ioredis';
import { tenantKeyPrefix } from '../../src/platform/redis/redis-keys';

/**
 * The hand-written reference: the essential work of GET /api/person with a session and
 * nothing else. Host -> tenant from a Map loaded at start; the tg-visit session read (and its
 * idle timeout refreshed) in Redis under the key the product's SessionStore uses; one
 * schema-qualified select of the person by primary key with node-postgres, the same columns
 * and detail sub-selects as the product's full view; the product's envelope.
 *
 * argv: port databaseUrl redisUrl
 */
const [port, databaseUrl, redisUrl] = process.argv.slice(2);
const IDLE_SECONDS = 60 * Number(process.env.SESSION_IDLE_MINUTES ?? 60);
const MAX_MS = 3_600_000 * Number(process.env.SESSION_MAX_HOURS ?? 12);
const COOKIE = /(?:^|;\s*)tg-visit=([A-Za-z0-9_-]{43})(?:;|$)/;

const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_MAX ?? 8) });
const redis = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });

interface TenantRef {
  id: number;
  schema: string;
  sql: string;
}

/** One statement per tenant, built once: schema-qualified (pg's ident quoting keeps it exact). */
function personSql(schema: string): string {
  const t = (name: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
  return `select p.id as person_id, p.user_name, p.firstname, p.lastname, p.jobtitle, p.email, p.mobile, p.organisation_id, p.employee_code,
      to_char(p.birthdate, 'YYYY-MM-DD') as birthdate, p.extern_person_id, p.address, p.postcode, p.city, p.phone, p.sex, p.notice,
      p.profile_image, p.source, p.code, p.superuser, p.superadmin,
      (select json_build_object('organisation_id', o.id, 'name', o.name) from ${t('organisations')} o where o.id = p.organisation_id) as organisation,
      coalesce((select json_agg(json_build_object('role_id', r.id, 'name', r.name, 'meta_type', r.meta_type) order by r.id)
         from ${t('person_roles')} pr join ${t('roles')} r on r.id = pr.role_id where pr.person_id = p.id), '[]'::json) as roles,
      coalesce((select json_agg(json_build_object('organisation_id', o.id, 'name', o.name) order by o.id)
         from ${t('organisation_managers')} om join ${t('organisations')} o on o.id = om.organisation_id where om.person_id = p.id), '[]'::json) as manages,
      p.password_changed_at, p.must_change_password, p.created_at, p.updated_at
    from ${t('persons')} p where p.id = $1`;
}

async function loadTenants(): Promise<Map<string, TenantRef>> {
  const { rows } = await pool.query(
    `select h.host, t.id, t.schema_name from platform.tenant_hosts h join platform.tenants t on t.id = h.tenant_id where t.status = 'active'`,
  );
  return new Map(rows.map((r) => [r.host, { id: r.id, schema: r.schema_name, sql: personSql(r.schema_name) }]));
}

const unauthorised = { valid: false, message: 'not logged in', errorcode: 401 };

async function main() {
  const tenants = await loadTenants();
  const app = express();
  app.set('x-powered-by', false);
  app.get('/api/person', async (req, res) => {
    const tenant = tenants.get((req.headers.host ?? '').toLowerCase());
    if (!tenant) return void res.status(404).json({ valid: false, message: 'unknown host', errorcode: 404 });
    const sessionId = COOKIE.exec(req.headers.cookie ?? '')?.[1];
    if (!sessionId) return void res.status(401).json(unauthorised);
    try {
      const raw = await redis.getex(`${tenantKeyPrefix(tenant, redis)}session:${sessionId}`, 'EX', IDLE_SECONDS);
      const session = raw ? (JSON.parse(raw) as { personId: number; createdAt: number }) : null;
      if (!session || Date.now() - session.createdAt > MAX_MS) return void res.status(401).json(unauthorised);
      const { rows } = await pool.query(tenant.sql, [session.personId]);
      if (rows.length === 0) return void res.status(401).json(unauthorised);
      res.json({ valid: true, message: 'OK', person: rows });
    } catch (err) {
      res.status(500).json({ valid: false, message: String(err), errorcode: 500 });
    }
  });
  app.get('/readyz', (_req, res) => void res.json({ valid: true, message: 'OK', tenants: tenants.size }));
  const server = app.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () =>
    server.close(() => {
      void Promise.allSettled([pool.end(), redis.quit()]).then(() => process.exit(0));
    }),
  );
}

main().catch((err) => {
  process.stderr.write(`reference server failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
