import { inject, injectable } from 'tsyringe';
import { CLIENT_IP, TENANT_DB } from '../tokens';
import type { TenantDb } from '../tenant-scope/tenant-db';
import { recordSecurityEvent, type SecurityEvent } from './security-audit';

/**
 * recordSecurityEvent with the caller's address filled in from the request scope, for
 * services that have no RouteContext. Pass the change's transaction as `db`.
 */
@injectable()
export class AuditTrail {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(CLIENT_IP) private readonly ip: string | null,
  ) {}

  record(event: Omit<SecurityEvent, 'ip'>, db: TenantDb = this.db): Promise<void> {
    return recordSecurityEvent(db, { ...event, ip: this.ip });
  }
}
