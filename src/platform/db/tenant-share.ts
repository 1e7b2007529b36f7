import type { Knex } from 'knex';
import { ApiError } from '../errors/api-error';
import type { TenantBudget } from './tenant-budget';

interface Waiter {
  resolve: () => void;
  timer: NodeJS.Timeout;
}

/** How many of a group's connections one tenant holds at once, and for how long the next query waits. */
export class TenantShare {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly limit: number,
    private readonly waitMs: number,
    private readonly counts: ShareCounts,
  ) {}

  async enter(): Promise<void> {
    if (this.held < this.limit) {
      this.held++;
      return;
    }
    this.counts.waits++;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          this.counts.refusals++;
          reject(new ApiError(503, 'this tenant is using its share of database connections; try again shortly', {}, { 'Retry-After': '1' }));
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** Hands the slot straight to the next waiter so a steady stream of new queries cannot overtake it. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
    } else {
      this.held--;
    }
  }
}

export interface ShareCounts {
  waits: number;
  refusals: number;
}

/**
 * A knex on the same pool whose connection acquire passes through the tenant's share first (when
 * there is one) and notes the tenant on the connection's budget (when there is one).
 * Transactions acquire through the same client, so they count too.
 */
export function sharedKnex(group: Knex, share: TenantShare | null, budget?: { tenantId: number; budget: TenantBudget }): Knex {
  const clone = group.withUserParams({});
  const client = clone.client as any;
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  // knex releases a streamed query's connection twice; only the first one gives the slot back
  const holding = new WeakSet<object>();
  client.acquireConnection = async () => {
    await share?.enter();
    try {
      const connection = await acquire();
      holding.add(connection);
      budget?.budget.touch(connection, budget.tenantId);
      return connection;
    } catch (err) {
      share?.leave();
      throw err;
    }
  };
  client.releaseConnection = async (connection: object) => {
    if (holding.delete(connection)) share?.leave();
    return release(connection);
  };
  return clone;
}
