import type { InjectionToken } from 'tsyringe';
import type { Knex } from 'knex';
import type { Tenant } from '../platform/tenancy/tenant';
import type { TenantDb } from '../platform/tenancy/tenant-db';
import type { Transaction } from '../platform/tenancy/unit-of-work';

/*
 * What the people module asks of the modules above it. People is the lowest module: every other
 * one knows persons, so people may know none of them. Each port is declared here and implemented
 * by the module that owns the data (registered in its index.ts), as NEW_PERSON_NOTIFIER always was.
 */

/** Sessions of a person (identity): a new password or an erasure ends them. */
export interface PersonSessions {
  destroyAllFor(tenant: Tenant, personId: number, keep?: string): Promise<void>;
}
export const PERSON_SESSIONS: InjectionToken<PersonSessions> = Symbol('PersonSessions');

/** The login limits (identity): checking old_password counts against them like a login. */
export interface PasswordAttempts {
  attempt(userName: string, ip: string, check: 'old_password'): Promise<void>;
  /** Runs the password check; when it throws (no verdict: the database or Redis is away), the attempt is taken back. */
  deciding<T>(userName: string, ip: string, check: () => Promise<T>): Promise<T>;
  succeeded(userName: string, ip: string): Promise<void>;
}
export const PASSWORD_ATTEMPTS: InjectionToken<PasswordAttempts> = Symbol('PasswordAttempts');

/** A role as a person's full view shows it. */
export interface HeldRole {
  id: number;
  name: string;
  meta_type: string;
}

/** The roles persons hold (catalogue owns roles and person_roles). */
export interface PersonRoles {
  /** JSON column `roles` for a query on persons as p: the roles held, ordered by id. */
  heldColumn(db: TenantDb): Knex.Raw;
  held(personId: number): Promise<HeldRole[]>;
  /** Ids of the roles a person holds, read on `db` (a transaction about to change them). */
  ids(db: TenantDb, personId: number): Promise<number[]>;
  replace(tx: Transaction, personId: number, roleIds: number[]): Promise<void>;
  add(tx: Transaction, personId: number, roleId: number): Promise<void>;
  /** Returns how many were held. */
  remove(tx: Transaction, personId: number, roleIds: number[]): Promise<number>;
  /** Ids among `ids` that are no role. */
  missing(ids: number[]): Promise<number[]>;
  /** Correlated sub-query: the person p holds any of the roles. */
  holdsAny(db: TenantDb, roleIds: number[]): Knex.QueryBuilder;
}
export const PERSON_ROLES: InjectionToken<PersonRoles> = Symbol('PersonRoles');

/** Competences persons hold (catalogue owns competences and registrations). */
export interface PersonQualifications {
  missing(competenceIds: number[]): Promise<number[]>;
  /** Correlated sub-query: the person p holds the competence on `today` (the tenant's day). */
  holds(db: TenantDb, competenceId: number, today: string): Knex.QueryBuilder;
}
export const PERSON_QUALIFICATIONS: InjectionToken<PersonQualifications> = Symbol('PersonQualifications');

/** Sign-ons of persons (courses owns events and person_events). */
export interface PersonAttendance {
  missing(eventIds: number[]): Promise<number[]>;
  /** Correlated sub-query: the person p is signed on to the event or on its wait list. */
  attends(db: TenantDb, eventId: number): Knex.QueryBuilder;
}
export const PERSON_ATTENDANCE: InjectionToken<PersonAttendance> = Symbol('PersonAttendance');
