import type { InjectionToken } from 'tsyringe';
import type { Knex } from 'knex';
import type { Env } from '../config/env';
import { createKnex } from '../db/create-knex';
import { createTenantPools, type TenantPools } from '../db/tenant-pools';

/** The cluster DATABASE_URL names: it also holds the platform schema. */
export const MAIN_CLUSTER = 'main';

export const CLUSTERS: InjectionToken<Clusters> = Symbol('Clusters');

export class UnknownClusterError extends Error {}

interface Opened {
  admin: Knex;
  pools: TenantPools;
}

/**
 * The PostgreSQL clusters that hold tenant schemas: `main` (DATABASE_URL, also the platform
 * database) and those of TENANT_DATABASE_URLS, in the order declared. Per cluster there is an
 * admin pool (migrations, import, export, moves: no statement timeout, like the platform pool;
 * for main it is the platform pool itself) and the tenant connection groups (TenantPools).
 * Pools of other clusters open on first use, so a process opens no connection to a cluster
 * whose tenants it does not serve.
 */
export class Clusters {
  readonly names: readonly string[];
  private readonly urls = new Map<string, string>();
  private readonly opened = new Map<string, Opened>();

  constructor(
    private readonly env: Env,
    mainUrl: string,
    main: Opened,
  ) {
    this.urls.set(MAIN_CLUSTER, mainUrl);
    for (const c of env.TENANT_DATABASE_URLS) this.urls.set(c.name, c.url);
    this.names = [...this.urls.keys()];
    this.opened.set(MAIN_CLUSTER, main);
  }

  has(name: string): boolean {
    return this.urls.has(name);
  }

  /** The cluster's name, checked; refuses a name the configuration does not declare. */
  checked(name: string | null | undefined): string {
    const n = name ?? MAIN_CLUSTER;
    if (!this.urls.has(n)) throw new UnknownClusterError(`unknown cluster "${n}" (declared: ${this.names.join(', ')}; see TENANT_DATABASE_URLS)`);
    return n;
  }

  url(name: string): string {
    return this.urls.get(this.checked(name))!;
  }

  /** Migrations, import, export and moves on this cluster (no statement timeout). */
  admin(name: string | null | undefined): Knex {
    return this.open(this.checked(name)).admin;
  }

  pools(name: string | null | undefined): TenantPools {
    return this.open(this.checked(name)).pools;
  }

  /** The connection group a tenant's requests and jobs use, on the cluster it is placed on. */
  forTenant(tenant: { id: number; cluster?: string | null }): Knex {
    return this.pools(tenant.cluster).forTenant(tenant.id);
  }

  /** Clusters whose pools are open in this process (for metrics). */
  openNames(): string[] {
    return [...this.opened.keys()];
  }

  private open(name: string): Opened {
    let o = this.opened.get(name);
    if (!o) {
      const url = this.urls.get(name)!;
      o = { admin: createKnex(this.env, url), pools: createTenantPools(this.env, url) };
      this.opened.set(name, o);
    }
    return o;
  }

  /** Closes the pools of the other clusters; main's belong to the container (KNEX, TENANT_POOLS). */
  async destroy(): Promise<void> {
    const others = [...this.opened].filter(([name]) => name !== MAIN_CLUSTER);
    for (const [name] of others) this.opened.delete(name);
    await Promise.all(others.flatMap(([, o]) => [o.admin.destroy(), o.pools.destroy()]));
  }
}
