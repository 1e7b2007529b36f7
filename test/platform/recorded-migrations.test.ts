import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import { Client } from 'pg';
import { tenantMigrations } from '../../migrations/tenant';
import { migrateSchema, type Migration } from '../../src/platform/migrations/migration-runner';
import { describeSchema } from '../../src/platform/migrations/describe-schema';
import {
  catalogDifference,
  inlineStatement,
  NotReplayableError,
  recordMigrations,
  replayMigrations,
  type MigrationScript,
} from '../../src/platform/migrations/recorded-migrations';

/**
 * Spare schemas are made by replaying the tenant migrations as recorded on a template
 * (src/platform/migrations/recorded-migrations.ts). A schema made so must be indistinguishable
 * from one the migration runner made. A database of this file's own (no other file sees its
 * schemas; none is named like a spare).
 */
let db: Knex;
let dbName: string;
const name = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const adminClient = async () => {
  const c = new Client({ connectionString: inject('databaseUrl') });
  await c.connect();
  return c;
};

beforeAll(async () => {
  dbName = name('replay');
  const admin = await adminClient();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  // as the product's pools: an empty search_path, so nothing unqualified lands anywhere by accident
  db = knexFactory({
    client: 'pg',
    connection: { connectionString: inject('databaseUrl').replace(/\/[^/]+$/, `/${dbName}`), options: '-c search_path=' },
    pool: { min: 0, max: 4 },
  });
});
afterAll(async () => {
  await db?.destroy();
  const admin = await adminClient();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

describe('recorded tenant migrations', () => {
  let script: MigrationScript;
  let migrated: string;

  beforeAll(async () => {
    script = await recordMigrations(db, name('tpl'), name('probe'), tenantMigrations);
    migrated = name('migrated');
    await migrateSchema(db, migrated, tenantMigrations);
  });

  it('make a schema whose catalog is that of one the migration runner made, bookkeeping rows included', async () => {
    const replayed = name('replayed');
    await replayMigrations(db, script, replayed);
    const a = await describeSchema(db, migrated);
    const b = await describeSchema(db, replayed);
    expect(b).toEqual(a);
    // the description is not empty of what matters
    for (const kind of ['relation', 'column', 'sequence', 'index', 'constraint', 'trigger', 'function']) {
      expect(a.filter((l) => l.startsWith(`${kind}: `)).length, kind).toBeGreaterThan(1);
    }
    expect(a.some((l) => l.startsWith("column: persons 1 id integer t nextval('@.persons_id_seq'::regclass)"))).toBe(true);
    expect(a.filter((l) => l.startsWith('migration: '))).toEqual(tenantMigrations.map((m) => `migration: ${m.name}`).sort());
    expect(a.some((l) => l.startsWith('trigger: persons ') && l.includes('EXECUTE FUNCTION @.notify_principal_changed()'))).toBe(true);
    expect(
      a.some((l) => l.startsWith('constraint: persons persons_organisation_id_foreign f') && l.includes('REFERENCES @.organisations(id) ON DELETE SET NULL')),
    ).toBe(true);
  });

  it('differ from it when any statement with an effect is left out of the replay', { timeout: 300_000 }, async () => {
    const unchanged: string[] = [];
    const made: string[] = [];
    const leaveOut = async (i: number) => {
      const schema = name('short');
      try {
        await replayMigrations(db, { ...script, statements: script.statements.filter((_, j) => j !== i) }, schema);
      } catch {
        return; // the replay failed as a whole: nothing of it remains
      }
      made.push(schema);
      if ((await catalogDifference(db, migrated, schema)) === null) unchanged.push(script.statements[i]);
    };
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < script.statements.length) await leaveOut(next++);
      }),
    );
    for (const s of made) await db.raw('drop schema ?? cascade', [s]);
    // only the runner's lock, its read of the applied migrations and data backfills (nothing to fill in a new schema) leave no trace
    expect(
      unchanged
        .map((s) =>
          s
            .replace(/_[0-9a-f]{16}/g, '_*')
            .replace(/\s+/g, ' ')
            .trim(),
        )
        .sort(),
    ).toEqual([
      'select "name" from "tpl_*"."schema_migrations"',
      "select pg_advisory_xact_lock(hashtext('migrate:tpl_*'))",
      // migration 290's backfill of the audit log's person ids (and the guard's switch around it)
      "set local app.audit_erasure = 'off'",
      "set local app.audit_erasure = 'on'",
      "update audit_log a set actor_id = p.id from persons p where p.user_name = a.actor and a.actor not in ('operator', 'anonymous', 'system')",
      'update audit_log a set subject_id = p.id from persons p where p.user_name = a.subject and a.type in ( ' +
        "'login.succeeded', 'login.failed', 'login.throttled', 'login.sso', 'logout', 'password.changed', 'password.reset', 'email.changed', " +
        "'mobile.changed', 'roles.changed', 'person.erased', 'person.deactivated', 'person.reactivated', 'manager.added', 'manager.removed', " +
        "'participant.result_recorded', 'certificate.issued', 'calendar_feed.created', 'calendar_feed.revoked')",
      "update message_deliveries d set priority = 1 from messages m where m.id = d.message_id and m.kind = 'password' and (d.relayed_at is null or d.state in ('queued', 'sending'))",
    ]);
    expect(made.length).toBeGreaterThan(script.statements.length / 2);
  });

  it('leave nothing behind when the replay fails', async () => {
    const schema = name('failed');
    const broken = { ...script, statements: [...script.statements, 'select 1 / 0'] };
    await expect(replayMigrations(db, broken, schema)).rejects.toThrow(/division by zero/);
    expect((await db.raw('select 1 from pg_namespace where nspname = ?', [schema])).rows).toHaveLength(0);
  });

  it('are later migrated like any schema', async () => {
    const replayed = name('later');
    await replayMigrations(db, script, replayed);
    const next: Migration = { name: '999_later', up: async (trx) => void (await trx.schema.alterTable('persons', (t) => t.text('later'))) };
    expect((await migrateSchema(db, replayed, [...tenantMigrations, next])).applied).toEqual(['999_later']);
    expect((await migrateSchema(db, migrated, [...tenantMigrations, next])).applied).toEqual(['999_later']);
    expect(await catalogDifference(db, migrated, replayed)).toBeNull();
  });
});

describe('recording refuses what it could not replay faithfully', () => {
  const refuses = async (up: Migration['up'], message: RegExp) => {
    const err = await recordMigrations(db, name('tpl'), name('probe'), [{ name: '001_odd', up }]).catch((e: Error) => e);
    expect(err).toBeInstanceOf(NotReplayableError);
    expect((err as Error).message).toMatch(message);
  };

  it('a migration that binds values of its own (every schema would get the same)', async () => {
    await refuses(async (trx) => {
      await trx.schema.createTable('secrets', (t) => t.text('value'));
      await trx.table('secrets').insert({ value: randomBytes(8).toString('hex') });
    }, /binds a value of its own/);
  });

  it('a migration that writes the schema name unquoted (a function body, a qualified name)', async () => {
    await refuses(async (trx) => {
      const schema = (await trx.raw('select current_schema() as s')).rows[0].s;
      await trx.raw(`create table ${schema}.t (id int)`);
    }, /stands unquoted/);
  });

  it('a migration that controls the transaction', async () => {
    await refuses(async (trx) => {
      await trx.raw('savepoint inner_step');
      await trx.schema.createTable('t', (t) => t.integer('id'));
    }, /controls the transaction/);
  });

  it('inlines bound values as literals, and no value that could be misread', () => {
    expect(inlineStatement({ sql: 'select set_config($1, $2, true)', bindings: ["a'b", 'c\\d'] })).toBe("select set_config('a''b',  E'c\\\\d', true)");
    expect(() => inlineStatement({ sql: 'create function f() returns int language sql as $$ select $1 $$', bindings: ['x'] })).toThrow(NotReplayableError);
    expect(() => inlineStatement({ sql: 'select $1', bindings: [new Date()] })).toThrow(NotReplayableError);
  });
});
