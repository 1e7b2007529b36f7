export { recordSecurityEvent, redactDetails, SECURITY_EVENT_TYPES } from './security-audit';
export type { SecurityEvent, SecurityEventType } from './security-audit';
export { AuditTrail } from './audit-trail';
export { auditEntriesOf, renameInAuditLog } from './audit-log.repository';
export { auditLogRoutes } from './audit-log.routes';
