import type { Knex } from 'knex';
import { ApiError } from '../errors/api-error';

interface Waiter {
  resolve: () => void;
  timer: NodeJS.Timeout;
}

/**
 * The slots of one connection group: how many its tenants hold (entered, not yet left) and which
 * tenants have queries waiting. A tenant may go past its share (borrow) only while the group has
 * a slot free and no tenant of the group waits: the share is work-conserving.
 */
export class GroupShare {
  held = 0;
  private readonly waitingTenants = new Set<TenantShare>();

  constructor(readonly capacity: number) {}

  /** A borrow may start now: a connection is free and nobody of the group is queued for one. */
  canBorrow(): boolean {
    return this.held < this.capacity && this.waitingTenants.size === 0;
  }

  queued(tenant: TenantShare, hasWaiters: boolean): void {
    if (hasWaiters) this.waitingTenants.add(tenant);
    else this.waitingTenants.delete(tenant);
  }

  /** Hands free slots to waiting tenants, the one holding fewest first. */
  dispatch(): void {
    while (this.held < this.capacity && this.waitingTenants.size > 0) {
      let next: TenantShare | undefined;
      for (const t of this.waitingTenants) if (!next || t.holding < next.holding) next = t;
      next!.admitBorrower();
    }
  }
}

/**
 * How many of a group's connections one tenant holds at once, and for how long the next query
 * waits. Up to `limit` are the tenant's own; past it, a query borrows a free connection of the
 * group while no other tenant of the group is queued (`GroupShare`), and waits otherwise.
 */
export class TenantShare {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly limit: number,
    private readonly waitMs: number,
    private readonly counts: ShareCounts,
    private readonly group: GroupShare | null = null,
  ) {}

  get holding(): number {
    return this.held;
  }

  private take(): void {
    this.held++;
    if (this.group) this.group.held++;
  }

  async enter(): Promise<void> {
    if (this.held < this.limit) return this.take();
    if (this.group?.canBorrow()) {
      this.counts.borrows++;
      return this.take();
    }
    this.counts.waits++;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          this.group?.queued(this, this.waiting.length > 0);
          this.counts.refusals++;
          reject(new ApiError(503, 'this tenant is using its share of database connections; try again shortly', {}, { 'Retry-After': '1' }));
        }, this.waitMs),
      };
      this.waiting.push(waiter);
      this.group?.queued(this, true);
    });
  }

  /** Lets the head waiter go on a slot taken for it (its own share or a borrowed one). */
  private admit(): void {
    const next = this.waiting.shift()!;
    clearTimeout(next.timer);
    this.group?.queued(this, this.waiting.length > 0);
    this.take();
    next.resolve();
  }

  /** Called by the group for a free slot past the share. */
  admitBorrower(): void {
    this.counts.borrows++;
    this.admit();
  }

  /**
   * Gives the slot back. A waiter of this tenant within its share gets it at once, so a steady
   * stream of new queries cannot overtake it; a slot past the share goes back to the group.
   */
  leave(): void {
    this.held--;
    if (this.group) this.group.held--;
    if (this.waiting.length > 0 && this.held < this.limit) this.admit();
    this.group?.dispatch();
  }
}

export interface ShareCounts {
  waits: number;
  refusals: number;
  /** acquisitions past the share, on a connection of the group nobody else was waiting for */
  borrows: number;
}

/**
 * A knex on the same pool whose connection acquire passes through the tenant's share first.
 * Transactions acquire through the same client, so they count too.
 */
export function sharedKnex(group: Knex, share: TenantShare): Knex {
  const clone = group.withUserParams({});
  const client = clone.client as any;
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  // knex releases a streamed query's connection twice; only the first one gives the slot back
  const holding = new WeakSet<object>();
  client.acquireConnection = async () => {
    await share.enter();
    try {
      const connection = await acquire();
      holding.add(connection);
      return connection;
    } catch (err) {
      share.leave();
      throw err;
    }
  };
  client.releaseConnection = async (connection: object) => {
    if (holding.delete(connection)) share.leave();
    return release(connection);
  };
  return clone;
}
