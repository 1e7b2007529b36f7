import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT_DB, TENANT_SCOPE } from '../tokens';
import type { TenantDb } from './tenant-db';

/** Work that must wait for the commit: a mail's or webhook's wake-up, a cache invalidation, ending sessions. */
export type AfterCommitWork = () => unknown;

/**
 * One database transaction of a tenant. It hands out repositories and services bound to it, and
 * collects the work that may only happen once it has committed. There is no other way in: code
 * that writes in a transaction is reached through `tx.get(...)`.
 */
export interface Transaction {
  /**
   * A repository or service whose TENANT_DB is this transaction; one instance per class and
   * transaction. `tx.get(TENANT_DB)` is the transaction's own handle, for the owning module's raw SQL.
   */
  get<R>(token: InjectionToken<R>): R;
  /**
   * Runs `work` after the commit, in the order registered; never when the transaction rolls back.
   * Inside a joined (nested) run it waits for the outermost commit.
   */
  afterCommit(work: AfterCommitWork): void;
}

/**
 * The transaction itself, registered in the scope that tx.get builds from: a repository that must
 * act after the commit (the outbox's wake-up) injects it, so forgetting that step is impossible.
 * Resolving such a class outside a transaction fails, by construction.
 */
export const TRANSACTION: InjectionToken<Transaction> = Symbol('Transaction');

/**
 * The one way services open a transaction: `uow.run(async (tx) => tx.get(EventsRepository)...)`.
 * Nested runs (a service called inside another's transaction) join the outer one. When the work
 * commits, the after-commit work runs; all of it runs even if one fails, then the first failure
 * is thrown to the caller (the change itself is committed: it is not undone).
 */
@injectable()
export class UnitOfWork {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT_SCOPE) private readonly scope: DependencyContainer,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (this.scope.isRegistered(TRANSACTION, true)) return work(this.scope.resolve(TRANSACTION));
    const pending: AfterCommitWork[] = [];
    const result = await this.db.transaction((db) => work(transactionIn(bound(this.scope, db), pending)));
    await runAfterCommit(pending, this.logger);
    return result;
  }
}

async function runAfterCommit(pending: AfterCommitWork[], logger: Logger): Promise<void> {
  let first: unknown;
  let failed = false;
  // registered while running (an after-commit step that opens a transaction of its own) runs too
  for (let i = 0; i < pending.length; i++) {
    try {
      await pending[i]();
    } catch (err) {
      logger.warn({ err }, 'work after a commit failed');
      if (!failed) first = err;
      failed = true;
    }
  }
  if (failed) throw first;
}

/** The tenant scope with TENANT_DB replaced by the transaction: what it builds works on the transaction. */
function bound(scope: DependencyContainer, db: TenantDb): DependencyContainer {
  const child = scope.createChildContainer();
  child.register(TENANT_DB, { useValue: db });
  child.register(TENANT_SCOPE, { useValue: child });
  return child;
}

function transactionIn(scope: DependencyContainer, pending: AfterCommitWork[]): Transaction {
  const built = new Map<InjectionToken<unknown>, unknown>();
  const tx: Transaction = {
    get<R>(token: InjectionToken<R>): R {
      if (!built.has(token)) built.set(token, scope.resolve(token));
      return built.get(token) as R;
    },
    afterCommit(work: AfterCommitWork): void {
      pending.push(work);
    },
  };
  scope.register(TRANSACTION, { useValue: tx });
  return tx;
}
