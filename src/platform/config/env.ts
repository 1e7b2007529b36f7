import { isIP } from 'node:net';
import { z } from 'zod';
import { parseClusterNodes, RedisTargetError } from '../redis/redis-target';

const booleanFlag = z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']).transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** express's own names for address ranges (`trust proxy` accepts them next to addresses and CIDRs). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(v: string): boolean {
  if (PROXY_RANGE_NAMES.includes(v)) return true;
  const [addr, bits, extra] = v.split('/');
  const family = isIP(addr);
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * express `trust proxy` as a hop count or a list of proxy addresses/CIDRs. "Trust every hop"
 * (true) is refused: the client could then choose its own address by sending X-Forwarded-For,
 * and with it reset every per-address limit.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): number | string[] => {
    if (/^\d{1,2}$/.test(v)) return Number(v);
    if (v === 'false') return 0;
    const list = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = list.filter((s) => !isProxyAddress(s));
    if (list.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a hop count (0-99) or a comma-separated list of proxy addresses/CIDRs (${PROXY_RANGE_NAMES.join(', ')} allowed); "trust all" (true) is refused; got ${bad.join(', ') || v}`,
      });
      return z.NEVER;
    }
    return list;
  });

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((v) => protocols.some((p) => v.startsWith(p)), { message: `must start with ${protocols.join(' or ')}` })
    .optional();

/** A Redis Cluster's seed nodes: `host:port,host:port` (or redis:// / rediss:// URLs carrying credentials, TLS). */
const clusterNodes = z
  .string()
  .trim()
  .superRefine((v, ctx) => {
    try {
      parseClusterNodes(v);
    } catch (err) {
      if (!(err instanceof RedisTargetError)) throw err;
      ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of host:port: ${err.message}` });
    }
  })
  .optional();
/**
 * TENANT_DATABASE_URLS: more PostgreSQL clusters for tenant schemas, `name=url,name=url`
 * (DATABASE_URL is the platform database and the cluster named `main`).
 */
const clusterList = z
  .string()
  .trim()
  .transform((v, ctx): { name: string; url: string }[] => {
    const out: { name: string; url: string }[] = [];
    for (const part of v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const at = part.indexOf('=');
      const name = at > 0 ? part.slice(0, at).trim() : '';
      const url = at > 0 ? part.slice(at + 1).trim() : '';
      const problem = !/^[a-z][a-z0-9_-]{0,39}$/.test(name)
        ? `cluster name "${name || part}" must be lowercase letters, digits, - or _, starting with a letter`
        : name === 'main'
          ? '"main" is DATABASE_URL; name the other clusters differently'
          : out.some((c) => c.name === name)
            ? `cluster "${name}" is declared twice`
            : !/^postgres(ql)?:\/\/./.test(url)
              ? `cluster "${name}": the URL must start with postgres:// or postgresql://`
              : null;
      if (problem) {
        ctx.addIssue({ code: 'custom', message: `${problem} (format: name=postgres://...,name=postgres://...)` });
        return z.NEVER;
      }
      out.push({ name, url });
    }
    return out;
  });

/** Every environment variable the product reads. Nothing else reads process.env. */
export const Env = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: optionalUrl(['postgres://', 'postgresql://']),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(8),
  DATABASE_POOL_GROUPS: z.coerce.number().int().min(1).max(64).default(4),
  DATABASE_CONNECTION_LIFETIME_SECONDS: z.coerce.number().int().min(10).default(600),
  /** A tenant connection that has served more tenants than this is recycled (0: lifetime only). */
  DATABASE_CONNECTION_MAX_TENANTS: z.coerce.number().int().min(0).default(500),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  DATABASE_TENANT_SHARE_PERCENT: z.coerce.number().int().min(1).max(100).default(50),
  // Past its share a tenant may borrow a free connection of its group while no other tenant of the
  // group waits (work-conserving); 0 makes the share a hard cap.
  DATABASE_TENANT_SHARE_BORROW: booleanFlag.default(true),
  // 5 s: long enough for a burst of one tenant's short transactions (50 sign-ons at once queue
  // behind its share), short enough that a flood is refused before the statement timeout.
  DATABASE_TENANT_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** On SIGTERM: how long in-flight HTTP requests and running jobs may take to finish. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  TENANT_DATABASE_URLS: clusterList.default([]),
  /** Pre-migrated spare schemas kept per cluster, so that creating a tenant is a rename (0: none). */
  TENANT_SPARE_SCHEMAS: z.coerce.number().int().min(0).max(100_000).default(2),
  REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  QUEUE_REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  /** Set: sessions, rate limits and the rest of REDIS_URL's keys live on this Redis Cluster instead. */
  REDIS_CLUSTER_NODES: clusterNodes,
  /** Set: the queues and the outbox and webhook signals live on this Redis Cluster instead of QUEUE_REDIS_URL. */
  QUEUE_REDIS_CLUSTER_NODES: clusterNodes,
  /** API processes `npm start` and `npm run api` run on the one port (node:cluster). */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  SMTP_URL: optionalUrl(['smtp://', 'smtps://']),
  /** The platform's default e-mail sender, used by a tenant without the config item mail.from (e.g. "Training <no-reply@training.example>"). */
  MAIL_FROM: z
    .string()
    .trim()
    .max(320)
    .regex(
      /^[^@\s<>]+@[^@\s<>]+$|^[^<>]*<[^@\s<>]+@[^@\s<>]+>$/,
      'must be an address (name@example.com) or a name and address ("Training <no-reply@example.com>")',
    )
    .optional(),
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hex digits')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  TWILIO_BASE_URL: optionalUrl(['http://', 'https://']),
  PLATFORM_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: trustProxy.default(0),
  DATA_DIR: z.string().default('.data'),
  SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).default(60),
  SESSION_MAX_HOURS: z.coerce.number().int().min(1).default(12),
  COOKIE_SECURE: booleanFlag.default(false),
  COOKIE_SAMESITE: z.enum(['lax', 'strict', 'none']).default('lax'),
  TENANT_CACHE_SECONDS: z.coerce.number().int().min(0).default(300),
  PRINCIPAL_CACHE_SECONDS: z.coerce.number().int().min(0).default(300),
  /** Cached GET answers kept per API process at most; the least recently used go first. */
  TENANT_DATA_CACHE_ENTRIES: z.coerce.number().int().min(1).default(100_000),
  /**
   * OTLP/HTTP endpoint for traces; unset: tracing off. Read (before this validation) by
   * src/platform/tracing/start-tracing.ts, the first thing each process loads; checked here too.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(['http://', 'https://']),
  /** Tenants with a label of their own on /metrics (the most HTTP traffic); the rest are `other` (src/platform/metrics/tenant-labels.ts). */
  METRICS_TENANT_LABELS: z.coerce.number().int().min(0).max(100_000).default(100),
  MIGRATE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Idempotency-Keys one caller (person) of a tenant may hold at once; each is kept 24 h; past it 429. */
  IDEMPOTENCY_MAX_KEYS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  /** The platform's ceiling on a caller's rate-limit points per minute: api.rate_limit.per_minute (or none) never goes above it; 0: no ceiling. */
  API_RATE_LIMIT_CEILING_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(6000),
  /** Bulk imports (POST /api/imports): the largest file and the most data rows taken (413 beyond either), rows per transaction. */
  IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(20 * 1024 * 1024),
  IMPORT_MAX_ROWS: z.coerce.number().int().min(1).default(100_000),
  IMPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(10_000).default(500),
  /**
   * Tenant archive import (npm run tenant -- import, POST /platform/tenants/import): the gzip'd body, the
   * bytes unpacked in all, one entry's bytes and the number of entries taken (413 beyond any of them).
   */
  ARCHIVE_IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(8 * 1024 ** 3),
  ARCHIVE_IMPORT_MAX_UNPACKED_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(32 * 1024 ** 3),
  ARCHIVE_IMPORT_MAX_ENTRY_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(1024 ** 3),
  ARCHIVE_IMPORT_MAX_ENTRIES: z.coerce.number().int().min(3).default(1_000_000),
  /** Unset: demo tenants only when npm start runs its own PostgreSQL (see demoTenantsWanted). */
  DEMO_TENANTS: booleanFlag.optional(),
  TENANT_HOST_CACHE_MAX: z.coerce.number().int().min(100).max(10_000_000).default(10_000),
  /** Known hosts and tenants cached by the tenant resolver (only real tenants enter: size it above the tenant count). */
  TENANT_CACHE_MAX: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
  /**
   * Before the API listens, PostgreSQL's catalog entries of the tables a tenant's first request reads
   * are built on every tenant connection, tenant after tenant, for at most this long (src/platform/db/catalog-warmup.ts);
   * the start-up grows by at most this, whatever the tenant count. 0: no warm-up.
   */
  STARTUP_WARMUP_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Anonymous requests sent through the app on a loopback port of its own before the API listens, so V8 has compiled the request path (src/platform/lifecycle/request-path-warmup.ts). 0: none. */
  STARTUP_WARMUP_REQUESTS: z.coerce.number().int().min(0).max(100_000).default(200),
  /**
   * Persons the API processes served last (kept in Redis on a graceful stop, for an hour) whose account rows and own
   * views a starting API loads before it listens, within STARTUP_WARMUP_MS (src/platform/lifecycle/recent-persons.ts). 0: none.
   */
  STARTUP_PRELOAD_PERSONS: z.coerce.number().int().min(0).max(100_000).default(5_000),
  /** A relayed delivery neither sent nor failed after this long is relayed again (lost job, killed worker). */
  OUTBOX_REDELIVER_AFTER_SECONDS: z.coerce.number().int().min(1).default(300),
  /** An undelivered message older than this is given up with the reason "expired". */
  MESSAGE_DELIVERY_MAX_AGE_HOURS: z.coerce.number().min(0.001).default(48),
  /** How often the workers scan every tenant for registrations due an expiry reminder. */
  REMINDER_SCAN_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86400)
    .default(3600),
  /** How often the workers look for report schedules whose period's time has come (issue 38). */
  REPORT_SCHEDULE_SCAN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Largest file attached to a mail (a scheduled report); a larger report is mailed without it, saying so. */
  MAIL_ATTACHMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  /** 1: webhook targets may be http and private/loopback addresses (tests, on-premise receivers). */
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
  /** Lifetime of an API client's access token (POST /oauth/token, client credentials). */
  OAUTH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(1).max(86400).default(3600),
  /** 1: identity provider issuers and SAML metadata / SSO URLs may be http, the metadata fetch may reach private addresses (tests, on-premise); otherwise https and public only. */
  IDENTITY_PROVIDERS_ALLOW_HTTP: booleanFlag.default(false),
});
export type Env = z.infer<typeof Env>;

export class EnvError extends Error {}

/** Parses the environment, listing every bad variable by name. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const input = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const result = Env.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (result.data.COOKIE_SAMESITE === 'none' && !result.data.COOKIE_SECURE) {
    throw new EnvError('Invalid configuration:\n  COOKIE_SAMESITE: "none" requires COOKIE_SECURE=1 (browsers reject it otherwise)');
  }
  return result.data;
}

/** Entry points: parse the environment or stop with the message that names the variables. */
export function loadEnvOrExit(source: NodeJS.ProcessEnv = process.env): Env {
  try {
    return loadEnv(source);
  } catch (err) {
    if (err instanceof EnvError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
