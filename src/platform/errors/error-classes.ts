/**
 * Which thrown errors are a dependency being down (503, retry later) rather than a bug (500).
 * Recognised by shape, not by class, so that errors from pg, knex, ioredis and bullmq all count
 * without this kernel importing them; wrapped errors are followed through `cause`.
 */

export const PG_UNIQUE_VIOLATION = '23505';
/** Seconds a client is asked to wait after a 503. */
export const RETRY_AFTER_SECONDS = 5;

// Connection exceptions, insufficient resources, operator intervention (shutdown, cancel,
// statement timeout), serialization failure and deadlock: worth retrying, not a bug.
const PG_TRANSIENT_CLASSES = ['08', '53', '57P'];
const PG_TRANSIENT_CODES = new Set(['57014', '40001', '40P01', '55P03']);
const NODE_NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH']);
const TRANSIENT_NAMES = new Set(['KnexTimeoutError', 'MaxRetriesPerRequestError', 'ConnectionTimeoutError']);
// knex puts the failed query in front of a driver's message ("select ... - Connection terminated
// unexpectedly"), so the pg messages may follow " - " as well as start the message.
const TRANSIENT_MESSAGES = [
  /^Connection is closed\.?$/, // ioredis
  /Stream isn't writeable/, // ioredis without offline queue
  /(^| - )Connection terminated/, // pg
  /Client has encountered a connection error/, // pg
  /(^| - )Client was closed and is not queryable$/, // pg: a pooled client whose server went away
  /(^| - )timeout exceeded when trying to connect$/, // pg pool
  /Knex: Timeout acquiring a connection/,
  /^(LOADING|MASTERDOWN|READONLY|OOM|BUSY|CLUSTERDOWN|TRYAGAIN)\b/, // Redis replies of a server that cannot serve now
  /^Cluster isn't ready/, // ioredis Cluster while the whole cluster is away
  /^None of startup nodes is available/, // ioredis Cluster
  /^Too many Cluster redirections/, // ioredis Cluster: slots moving for longer than its retries
];

function chain(err: unknown): any[] {
  const out: any[] = [];
  let e: any = err;
  while (e && typeof e === 'object' && out.length < 5) {
    out.push(e);
    e = e.cause;
  }
  return out;
}

export function isDependencyDown(err: unknown): boolean {
  return chain(err).some((e) => {
    const code = typeof e.code === 'string' ? e.code : '';
    if (/^[0-9A-Z]{5}$/.test(code) && (PG_TRANSIENT_CODES.has(code) || PG_TRANSIENT_CLASSES.some((c) => code.startsWith(c)))) return true;
    if (NODE_NET_CODES.has(code)) return true;
    if (TRANSIENT_NAMES.has(e.name) || TRANSIENT_NAMES.has(e.constructor?.name)) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    return TRANSIENT_MESSAGES.some((re) => re.test(message));
  });
}

/** Raised by the fence a tenant move puts on the old copy (src/tenancy/tenants/placement/move-triggers.ts). */
export const PG_WRITE_PAUSED = 'TM001';

/** A write refused because the tenant is being switched to another cluster: 503, retry in a second. */
export function isWritePaused(err: unknown): boolean {
  return chain(err).some((e) => e.code === PG_WRITE_PAUSED);
}

/** A unique index refused a write: two identical requests at once, where no route handles it itself. */
export function isUniqueViolation(err: unknown): boolean {
  return chain(err).some((e) => e.code === PG_UNIQUE_VIOLATION);
}
