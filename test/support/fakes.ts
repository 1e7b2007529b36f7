import type { InjectionToken } from 'tsyringe';
import type { Transaction, UnitOfWork } from '../../src/platform/tenant-scope/unit-of-work';
import { OUTBOUND_EVENTS } from '../../src/platform/outbound/outbound-events';
import { TenantConfig } from '../../src/platform/config-items/tenant-config';

/**
 * In-memory stand-ins for rule tests: a unit of work whose transaction hands out the fakes it was
 * given (by the repository class they stand for), and a tenant's config. No database, no mocks of
 * knex: the rules are tested through the repository interfaces they use.
 */
export function fakeUnitOfWork(repositories: [InjectionToken<any>, object][]): Pick<UnitOfWork, 'run'> & { runs: number } {
  const byToken = new Map<InjectionToken<any>, object>([[OUTBOUND_EVENTS, { record: async () => undefined }], ...repositories]);
  const uow = {
    runs: 0,
    /** As the real one: the work registered for after the commit runs once the work succeeded, never after a failure. */
    async run<T>(work: (t: Transaction) => Promise<T>): Promise<T> {
      uow.runs++;
      const pending: (() => unknown)[] = [];
      const tx: Transaction = {
        get<R>(token: InjectionToken<R>): R {
          const found = byToken.get(token);
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a class prints as its source, a symbol or string as itself: enough to name the missing fake
          if (!found) throw new Error(`no fake for ${String(token)}`);
          return found as R;
        },
        afterCommit: (w) => void pending.push(w),
      };
      const result = await work(tx);
      for (const w of pending) await w();
      return result;
    },
  };
  return uow;
}

export function tenantConfig(values: Record<string, unknown> = {}): TenantConfig {
  return new TenantConfig(new Map(Object.entries(values)));
}

/** A clock standing at `now`, whose day is the UTC day of it (tests pick instants far from midnight). */
export function clockAt(now: string) {
  const at = new Date(now);
  return { now: () => at, today: () => at.toISOString().slice(0, 10) };
}
