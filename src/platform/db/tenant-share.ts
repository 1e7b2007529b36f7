import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { ApiError } from '../errors/api-error';
import type { TenantBudget } from './tenant-budget';

// knex's own constructor of a knex instance around a client (what knex() and withUserParams use)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const makeKnex: (client: Knex.Client) => Knex = require('knex/lib/knex-builder/make-knex');

interface Waiter {
  resolve: () => void;
  timer: NodeJS.Timeout;
}

/** How long the other tenants of a group must have left its connections alone before a tenant may borrow. */
export const BORROW_QUIET_MS = 1000;

/**
 * The slots of one connection group: how many its tenants hold (entered, not yet left), which
 * tenants have queries waiting, and when each last took a slot. A tenant may go past its share
 * (borrow) only while the group has a slot free, no tenant of the group waits, and no other tenant
 * of the group has held a slot for BORROW_QUIET_MS: the share is work-conserving for a tenant that
 * is alone in its group, and a cap as soon as another one is active.
 */
export class GroupShare {
  held = 0;
  private readonly waitingTenants = new Set<TenantShare>();
  /** Tenants that held a slot lately: when they last took or gave one back. */
  private readonly lastActive = new Map<TenantShare, number>();

  constructor(
    readonly capacity: number,
    private readonly quietMs = BORROW_QUIET_MS,
    private readonly now: () => number = Date.now,
  ) {}

  active(tenant: TenantShare): void {
    this.lastActive.set(tenant, this.now());
  }

  /** Another tenant holds a slot, or held one within the quiet time. */
  private othersActive(tenant: TenantShare): boolean {
    const since = this.now() - this.quietMs;
    for (const [other, at] of this.lastActive) {
      if (other === tenant) continue;
      if (other.holding > 0 || at > since) return true;
      this.lastActive.delete(other);
    }
    return false;
  }

  /** A borrow may start now: a connection is free, nobody of the group is queued, the others are quiet. */
  canBorrow(tenant: TenantShare): boolean {
    return this.held < this.capacity && this.waitingTenants.size === 0 && !this.othersActive(tenant);
  }

  queued(tenant: TenantShare, hasWaiters: boolean): void {
    if (hasWaiters) this.waitingTenants.add(tenant);
    else this.waitingTenants.delete(tenant);
  }

  /** Hands a free slot past its share to a waiting tenant while it is the only one active. */
  dispatch(): void {
    while (this.held < this.capacity && this.waitingTenants.size === 1) {
      const [next] = this.waitingTenants;
      if (this.othersActive(next)) return;
      next.admitBorrower();
    }
  }
}

/**
 * How many of a group's connections one tenant holds at once, and for how long the next query
 * waits. Up to `limit` are the tenant's own; past it, a query borrows a free connection of the
 * group while no other tenant of the group is queued or lately active (`GroupShare`), and waits otherwise.
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
    if (this.group) {
      this.group.held++;
      this.group.active(this);
    }
  }

  async enter(): Promise<void> {
    if (this.held < this.limit) return this.take();
    if (this.group?.canBorrow(this)) {
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
    if (this.group) {
      this.group.held--;
      this.group.active(this);
    }
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
 * A knex on the same pool whose connection acquire passes through the tenant's share first (when
 * there is one) and notes the tenant on the connection's budget (when there is one).
 * Transactions acquire through the same client, so they count too.
 */
export function sharedKnex(group: Knex, share: TenantShare | null, budget?: { tenantId: number; budget: TenantBudget }): Knex {
  // A client that inherits everything of the group's (pool, config, driver) but the two methods
  // below, with its own event listeners. knex's withUserParams made a deep copy of the client
  // instead: about 0.25 ms per tenant, paid by the first request of each tenant after a start.
  const client = Object.create(group.client);
  EventEmitter.call(client);
  const acquire = group.client.acquireConnection.bind(group.client);
  const release = group.client.releaseConnection.bind(group.client);
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
  return makeKnex(client);
}
