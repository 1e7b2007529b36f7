import type { Knex } from 'knex';

type QueryFn = (connection: unknown, query: unknown) => Promise<unknown>;

/**
 * A transaction has one connection, and pg runs one query at a time on it: code that starts two
 * queries of the same transaction together (Promise.all over two reads) had pg queue the second
 * on the busy client, which pg 8 warns about ("Calling client.query() when the client is already
 * executing a query") and pg 9 refuses. This queues them here instead, in the order they were
 * started, so callers may keep their Promise.all (which on the pool outside a transaction does
 * run in parallel). Wraps the transaction's own client (knex makes one per transaction and
 * savepoint; knex-internals.test.ts guards the seam).
 */
export function oneQueryAtATime<T extends Knex.Transaction>(trx: T): T {
  // _query is the dialect's call into pg, below knex's own checks (a query after the commit is
  // still refused when it is made, not when its turn comes).
  const client = trx.client as unknown as { _query: QueryFn };
  const query = client._query;
  let tail: Promise<unknown> = Promise.resolve();
  client._query = function (this: unknown, connection: unknown, q: unknown) {
    const run = tail.then(() => query.call(this, connection, q));
    tail = run.catch(() => undefined);
    return run;
  };
  return trx;
}
