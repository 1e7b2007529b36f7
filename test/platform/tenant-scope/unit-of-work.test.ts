import { describe, expect, it } from 'vitest';
import { useAcmeApp } from '../../support/test-app';
import { TenantResolver } from '../../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../../src/platform/tenant-scope/request-scope';
import { UnitOfWork, TRANSACTION } from '../../../src/platform/tenant-scope/unit-of-work';
import { TENANT_DB } from '../../../src/platform/tokens';
import { OUTBOUND_EVENTS } from '../../../src/platform/outbound/outbound-events';

const bed = useAcmeApp();

/** A unit of work on the acme tenant, and a way to see what the database holds outside any transaction. */
async function unitOfWork() {
  const tenant = (await bed.t.container.resolve(TenantResolver).byHostName(bed.acme.host))!;
  const scope = openTenantScope(bed.t.container, tenant);
  const db = scope.resolve(TENANT_DB);
  const organisationName = async (id: number) => (await db.table('organisations').where({ id }).first('name'))?.name as string | undefined;
  const someOrganisation = await db.table('organisations').orderBy('id').first('id', 'name');
  return { uow: scope.resolve(UnitOfWork), scope, organisationName, org: someOrganisation };
}

describe('unit of work: after-commit work', () => {
  it('runs once, after the commit (the change is visible to others by then), in the order registered', async () => {
    const { uow, organisationName, org } = await unitOfWork();
    const seen: string[] = [];
    const result = await uow.run(async (tx) => {
      await tx.get(TENANT_DB).table('organisations').where({ id: org.id }).update({ name: 'Renamed in tx' });
      tx.afterCommit(async () => void seen.push(`first: ${await organisationName(org.id)}`));
      tx.afterCommit(() => void seen.push('second'));
      // registered, not run: the transaction has not committed yet
      expect(seen).toEqual([]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual(['first: Renamed in tx', 'second']);
    await uow.run(async (tx) => void (await tx.get(TENANT_DB).table('organisations').where({ id: org.id }).update({ name: org.name })));
  });

  it("never runs when the transaction rolls back; the work's error reaches the caller and the change is gone", async () => {
    const { uow, organisationName, org } = await unitOfWork();
    let ran = 0;
    const failure = await uow
      .run(async (tx) => {
        await tx.get(TENANT_DB).table('organisations').where({ id: org.id }).update({ name: 'Never committed' });
        tx.afterCommit(() => void ran++);
        throw new Error('refused half-way');
      })
      .catch((e: Error) => e);
    expect(failure.message).toBe('refused half-way');
    expect(ran).toBe(0);
    expect(await organisationName(org.id)).toBe(org.name);
  });

  it('a nested run joins the outer transaction: its work waits for the outer commit, and dies with an outer rollback', async () => {
    const { uow, org } = await unitOfWork();
    const seen: string[] = [];
    await uow.run(async (outer) => {
      const inner = outer.get(UnitOfWork);
      await inner.run(async (tx) => {
        expect(tx).toBe(outer);
        tx.afterCommit(() => void seen.push('inner'));
      });
      expect(seen).toEqual([]);
      outer.afterCommit(() => void seen.push('outer'));
    });
    expect(seen).toEqual(['inner', 'outer']);

    let ran = 0;
    await uow
      .run(async (outer) => {
        await outer.get(UnitOfWork).run(async (tx) => void tx.afterCommit(() => void ran++));
        await outer.get(TENANT_DB).table('organisations').where({ id: org.id }).update({ name: 'x' });
        throw new Error('outer fails after the inner run');
      })
      .catch(() => undefined);
    expect(ran).toBe(0);
  });

  it('a failing after-commit step does not stop the others nor undo the commit; its error reaches the caller', async () => {
    const { uow, organisationName, org } = await unitOfWork();
    const seen: string[] = [];
    const failure = await uow
      .run(async (tx) => {
        await tx.get(TENANT_DB).table('organisations').where({ id: org.id }).update({ name: 'Committed anyway' });
        tx.afterCommit(() => Promise.reject(new Error('redis away')));
        tx.afterCommit(() => void seen.push('still ran'));
      })
      .catch((e: Error) => e);
    expect((failure as Error).message).toBe('redis away');
    expect(seen).toEqual(['still ran']);
    expect(await organisationName(org.id)).toBe('Committed anyway');
    await uow.run(async (tx) => void (await tx.get(TENANT_DB).table('organisations').where({ id: org.id }).update({ name: org.name })));
  });

  it('what needs a transaction cannot be had outside one: the outbound events writer resolves only through tx.get', async () => {
    const { uow, scope } = await unitOfWork();
    expect(scope.isRegistered(TRANSACTION, true)).toBe(false);
    expect(() => scope.resolve(OUTBOUND_EVENTS)).toThrow();
    await uow.run(async (tx) => {
      expect(tx.get(OUTBOUND_EVENTS)).toBe(tx.get(OUTBOUND_EVENTS));
    });
  });
});
