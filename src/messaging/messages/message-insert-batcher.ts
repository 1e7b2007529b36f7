import { injectable } from 'tsyringe';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { currentTraceparent } from '../../platform/tracing/tracing';
import { isDependencyDown, isWritePaused } from '../../platform/errors/error-classes';
import { insertManyToUserName, insertOneToUserName, type RecipientsByUserName, type ToUserName, type ToUserNameResult } from './insert-to-user-name';

/**
 * At most this many messages go in one statement. 100 keeps a batch's statement short (a few ms of
 * PostgreSQL) and its jsonb parameter small (100 messages of 20,000 characters are 2 MB); a process
 * rarely has that many POSTs of one tenant waiting at once (the bench's 32 connections give at most 31).
 */
export const MAX_BATCH = 100;

/** Failures of a statement on a working connection (timeout, deadlock, lock): its messages are worth sending one by one. */
const STATEMENT_FAILURES = new Set(['57014', '40001', '40P01', '55P03']);

/** The database cannot serve now (connection lost or refused, the tenant's writes paused): alone, each message would get the same. */
function unreachable(err: unknown): boolean {
  return isWritePaused(err) || (isDependencyDown(err) && !STATEMENT_FAILURES.has((err as { code?: string }).code ?? ''));
}

interface Waiting {
  db: TenantDb;
  recipients: RecipientsByUserName;
  request: ToUserName;
  resolve: (result: ToUserNameResult) => void;
  reject: (err: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  inFlight: boolean;
}

/**
 * Group commit for a superuser's messages (POST /api/messages): while one statement of a tenant's
 * messages is in flight, the tenant's further messages wait, and go together as the next statement
 * when it returns. Each message alone cost one round trip and one commit (the API's knex compile,
 * socket write and result parse, PostgreSQL's statement, commit and NOTIFY); under load those are
 * now paid once per batch (src/messaging/messages/README.md, "Group commit").
 *
 * - No wait at low load: a message whose tenant has nothing in flight goes at once, alone (the
 *   one-message statement, as before).
 * - One statement in flight per tenant and process: the tenant's other connection(s) of its share
 *   stay free for its other queries, and a busy tenant's messages gather into large batches instead
 *   of two half-size ones competing for the same CPU.
 * - Tenant isolation by construction: a queue is keyed by the connection pool and the schema of the
 *   caller's TenantDb, and its statement is built with that TenantDb (schema-qualified), so a batch
 *   never holds two tenants' messages.
 * - Each caller gets its own answer (the batch returns one row per message, in order). When the batch
 *   fails, each message is sent again on its own, so one bad message fails only itself; when the
 *   database cannot serve (down, or the tenant's writes paused for a move), every message of the
 *   batch gets that error, as each would have alone (503).
 * - A caller is answered only after the statement committed (it runs outside any transaction). In a
 *   transaction the message goes at once, alone, in that transaction.
 */
@injectable()
export class MessageInsertBatcher {
  /** Statements sent and messages in them, for tests and profiling. */
  readonly counts = { messages: 0, statements: 0, batches: 0, largest: 0, fallbacks: 0 };
  /** The cap on one batch (MAX_BATCH); tests lower it. */
  maxBatch = MAX_BATCH;
  private readonly queues = new WeakMap<object, Map<string, Queue>>();

  /**
   * `recipients`: how the statement finds persons (the one flow that sends them gives the same
   * sub-queries every time; a batch uses its first message's).
   */
  insertToUserName(db: TenantDb, recipients: RecipientsByUserName, request: ToUserName): Promise<ToUserNameResult> {
    this.counts.messages++;
    // the caller's trace, taken now: its statement may run in another request's context
    const traceparent = currentTraceparent();
    if (traceparent) request = { ...request, traceparent };
    if (db.inTransaction) return this.one(db, recipients, request);
    let bySchema = this.queues.get(db.builder);
    if (!bySchema) this.queues.set(db.builder, (bySchema = new Map()));
    let queue = bySchema.get(db.schema);
    if (!queue) bySchema.set(db.schema, (queue = { waiting: [], inFlight: false }));
    const q = queue;
    return new Promise<ToUserNameResult>((resolve, reject) => {
      q.waiting.push({ db, recipients, request, resolve, reject });
      if (!q.inFlight) this.next(bySchema, db.schema, q);
    });
  }

  /** Sends what waits, then again when it returns; forgets the queue once it is empty. */
  private next(bySchema: Map<string, Queue>, schema: string, queue: Queue): void {
    const batch = queue.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) {
      queue.inFlight = false;
      bySchema.delete(schema);
      return;
    }
    queue.inFlight = true;
    void this.send(batch).finally(() => this.next(bySchema, schema, queue));
  }

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      const [w] = batch;
      return this.one(w.db, w.recipients, w.request).then(w.resolve, w.reject);
    }
    this.counts.statements++;
    this.counts.batches++;
    this.counts.largest = Math.max(this.counts.largest, batch.length);
    let results: ToUserNameResult[];
    try {
      results = await insertManyToUserName(
        batch[0].db,
        batch[0].recipients,
        batch.map((w) => w.request),
      );
    } catch (err) {
      if (unreachable(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      // one message's fault (or the batch's): each on its own gets its own outcome
      this.counts.fallbacks++;
      await Promise.all(batch.map((w) => this.one(w.db, w.recipients, w.request).then(w.resolve, w.reject)));
      return;
    }
    batch.forEach((w, n) => w.resolve(results[n]));
  }

  private one(db: TenantDb, recipients: RecipientsByUserName, request: ToUserName): Promise<ToUserNameResult> {
    this.counts.statements++;
    return insertOneToUserName(db, recipients, request);
  }
}
