import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { TENANT_DB, TENANT_SCOPE } from '../tokens';
import type { TenantDb } from './tenant-db';

/** One database transaction of a tenant, handing out repositories (and services) bound to it. */
export interface Transaction {
  /** The transaction's own handle, for code that takes a TenantDb (audit entries, notices). */
  readonly db: TenantDb;
  /** A repository or service whose TENANT_DB is this transaction; one instance per class and transaction. */
  get<R>(token: InjectionToken<R>): R;
}

/**
 * The one way services open a transaction: `uow.run(async (tx) => tx.get(EventsRepository)...)`,
 * instead of building repositories on a transaction by hand. Nested runs (a service called inside
 * another's transaction) join the outer one.
 */
@injectable()
export class UnitOfWork {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT_SCOPE) private readonly scope: DependencyContainer,
  ) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    // joining: this unit of work was built inside a transaction's scope already
    return this.db.transaction((db) => work(db === this.db ? transactionIn(this.scope, db) : transactionIn(bound(this.scope, db), db)));
  }
}

/** The tenant scope with TENANT_DB replaced by the transaction: what it builds works on the transaction. */
function bound(scope: DependencyContainer, db: TenantDb): DependencyContainer {
  const child = scope.createChildContainer();
  child.register(TENANT_DB, { useValue: db });
  child.register(TENANT_SCOPE, { useValue: child });
  return child;
}

function transactionIn(scope: DependencyContainer, db: TenantDb): Transaction {
  const built = new Map<InjectionToken<unknown>, unknown>();
  return {
    db,
    get<R>(token: InjectionToken<R>): R {
      if (!built.has(token)) built.set(token, scope.resolve(token));
      return built.get(token) as R;
    },
  };
}
