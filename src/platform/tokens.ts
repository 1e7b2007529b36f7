import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { Knex } from 'knex';
import type { RedisClient } from './redis/redis-client';
import type { Logger } from 'pino';
import type { Env } from './config/env';
import type { TenantDb } from './tenant-scope/tenant-db';
import type { Tenant } from './tenant-scope/tenant';
import type { TenantPools } from './db/tenant-pools';

/** Root registrations. */
export const ENV: InjectionToken<Env> = Symbol('Env');
export const LOGGER: InjectionToken<Logger> = Symbol('Logger');
/** The platform pool: control-plane tables, migrations, import and export. Tenant requests and jobs use TENANT_POOLS. */
export const KNEX: InjectionToken<Knex> = Symbol('Knex');
export const REDIS: InjectionToken<RedisClient> = Symbol('Redis');
/** For the few things that need a connection of their own (LISTEN). */
export const DATABASE_URL: InjectionToken<string> = Symbol('DatabaseUrl');
/** The tenant-affine connection groups; only the tenant scope factory uses them. */
export const TENANT_POOLS: InjectionToken<TenantPools> = Symbol('TenantPools');

/** Registered only in a request's or job's child container. */
export const TENANT: InjectionToken<Tenant> = Symbol('Tenant');
export const TENANT_DB: InjectionToken<TenantDb> = Symbol('TenantDb');
/** The request's (or job's) tenant scope itself: only the kernel's UnitOfWork builds from it. */
export const TENANT_SCOPE: InjectionToken<DependencyContainer> = Symbol('TenantScope');
/** The caller's address (req.ip) in a request's scope; null in a job's. For the security event log. */
export const CLIENT_IP: InjectionToken<string | null> = Symbol('ClientIp');
