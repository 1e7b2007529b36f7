import type { InjectionToken } from 'tsyringe';
import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Env } from './config/env';
import type { TenantDb } from './tenancy/tenant-db';
import type { Tenant } from './tenancy/tenant';

/** Root registrations. */
export const ENV: InjectionToken<Env> = Symbol('Env');
export const LOGGER: InjectionToken<Logger> = Symbol('Logger');
/** The raw pool. Only PlatformDb and the tenant scope factory may use it. */
export const KNEX: InjectionToken<Knex> = Symbol('Knex');
export const REDIS: InjectionToken<Redis> = Symbol('Redis');

/** Registered only in a request's or job's child container. */
export const TENANT: InjectionToken<Tenant> = Symbol('Tenant');
export const TENANT_DB: InjectionToken<TenantDb> = Symbol('TenantDb');
