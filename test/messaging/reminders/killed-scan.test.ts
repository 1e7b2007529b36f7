import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { idsByRef } from '../../people/persons/demo-refs';
import { tenantDb } from '../../courses/events/events-support';
import { startSmtpSink, startTestWorkers, waitFor } from '../messages/delivery-peers';
import { KNEX } from '../../../src/platform/tokens';
import { QUEUE_PREFIX } from '../../../src/platform/queue/job-definition';
import { dayAfter, scanNow, scannerFor } from './reminders-support';

const CHILD = path.join(__dirname, 'scan-child.ts');
const N = 30;

let t: TestApp;
let acme: DemoTenant;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workers: Awaited<ReturnType<typeof startTestWorkers>>;
let child: ChildProcess | undefined;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await createTestApp({ SMTP_URL: smtp.url });
  acme = await importDemoTenant(t, 'acme');
  workers = await startTestWorkers(t.container, [acme.tenantId]);
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await workers?.stop();
  await t?.close();
  await smtp?.stop();
});

describe('a worker killed in the middle of a reminder scan', () => {
  it('leaves every registration reminded or not; the next scan reminds the rest; each of 30 persons gets exactly one mail', async () => {
    const db = tenantDb(t, acme);
    const comps = await idsByRef(t, acme, 'competences');
    const persons: number[] = (
      await db
        .table('persons')
        .insert(Array.from({ length: N }, (_, i) => ({ user_name: `kill${i}`, email: `kill${i}@acme.example` })))
        .returning('id')
    )
      .map((r: { id: number }) => r.id)
      .sort((a: number, b: number) => a - b);
    const today = dayAfter(new Date(), 0);
    // one registration each, in person order: the scan goes through them in this order
    for (const id of persons)
      await db.table('person_competences').insert({ person_id: id, competence_id: comps['fire-ecourse'], date: today, valid_until: dayAfter(new Date(), 5) });

    // Hold the 15th person's row: the child's 15th reminder transaction (threshold rows already
    // written) waits on it when its message references that person.
    const knex = t.container.resolve<Knex>(KNEX);
    const hold = await knex.transaction();
    await hold.raw('select id from ?? where id = ? for update', [`${acme.schema}.persons`, persons[14]]);

    child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        CHILD_DATABASE_URL: inject('databaseUrl'),
        CHILD_REDIS_URL: inject('redisUrl'),
        CHILD_QUEUE_PREFIX: t.container.resolve(QUEUE_PREFIX),
        CHILD_TENANT_ID: String(acme.tenantId),
        CHILD_LOCK_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const messagesToThem = async () => Number((await db.table('messages').whereIn('recipient_id', persons).count('* as n').first())!.n);

    await waitFor(
      'the child blocked inside its 15th reminder',
      async () => {
        const { rows } = await knex.raw("select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like ? and query like '%insert into%'", [
          `%${acme.schema}%messages%`,
        ]);
        return rows.length > 0;
      },
      60_000,
    );
    expect(await messagesToThem()).toBe(14);
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    await hold.rollback();
    expect(out).toBe(''); // it never finished

    // the dead scan's lock expires (2 s); its open transaction was rolled back with its connection
    const summary = await scanNow(scannerFor(t.container, [acme.tenantId]));
    expect(summary).toMatchObject({ email: N - 14, tenants: 1 });
    const perPerson = await db.table('messages').whereIn('recipient_id', persons).groupBy('recipient_id').select('recipient_id', db.raw('count(*)::int as n'));
    expect(perPerson.map((r: { n: number }) => r.n)).toEqual(Array(N).fill(1));
    expect(Number((await db.table('expiry_reminders').count('* as n').first())!.n)).toBe(2 * N);

    const mailsToThem = () => smtp.mails.filter((m) => /^kill\d+@acme\.example$/.test(m.rcptTo[0]));
    await waitFor('30 reminder mails', () => mailsToThem().length >= N);
    expect(new Set(mailsToThem().map((m) => m.rcptTo[0])).size).toBe(N);
    expect(mailsToThem()).toHaveLength(N);
    // a later scan finds nothing left to remind
    expect(await scanNow(scannerFor(t.container, [acme.tenantId]))).toMatchObject({ email: 0, sms: 0, noContact: 0 });
  });
});
