import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Named (prepared) statements, bounded per connection. A statement run with a name is parsed and
 * planned once per connection and then only bound and executed: for a hot write such as
 * POST /api/messages' insert, planning was about a third of PostgreSQL's CPU per call (measured
 * in src/messaging/messages/README.md). PostgreSQL keeps each one in the backend until the connection
 * closes, so a connection prepares at most NAMED_PER_CONNECTION of them; past that, a statement
 * runs unnamed (planned each time, as every other statement) until the pool recycles the
 * connection (its lifetime, or DATABASE_CONNECTION_MAX_TENANTS). The text of a named statement
 * includes its tenant's schema, so every tenant has its own (`statementName`).
 */
export const NAMED_PER_CONNECTION = 200;

const named = new WeakMap<object, Set<string>>();

/** The name of a statement: its key and a digest of its full text (schema included), at most 63 bytes. */
export function statementName(key: string, sql: string): string {
  return `${key.slice(0, 30)}_${createHash('sha1').update(sql).digest('base64url').slice(0, 27)}`;
}

/** Makes the pool's queries that carry a statement name prepared ones, at most `max` per connection. */
export function boundNamedStatements(k: Knex, max = NAMED_PER_CONNECTION): Knex {
  const client = k.client as { _query(connection: object, obj: { options?: { name?: string } }): Promise<unknown> };
  const run = client._query.bind(client);
  client._query = (connection, obj) => {
    const name = obj.options?.name;
    if (name) {
      let names = named.get(connection);
      if (!names) named.set(connection, (names = new Set()));
      if (!names.has(name)) {
        if (names.size >= max) obj.options = { ...obj.options, name: undefined };
        else names.add(name);
      }
    }
    return run(connection, obj);
  };
  return k;
}

/** How many named statements a connection has prepared (tests). */
export function namedOn(connection: object): number {
  return named.get(connection)?.size ?? 0;
}
