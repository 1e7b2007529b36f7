export { recordSecurityEvent, redactDetails, SECURITY_EVENT_TYPES } from './security-audit';
export type { SecurityEvent, SecurityEventType } from './security-audit';
export { AuditTrail } from './audit-trail';
