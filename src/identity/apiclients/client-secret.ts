import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The OAuth scopes an API client may hold. */
export const API_CLIENT_SCOPES = ['api.read', 'api.write', 'scim'] as const;
export type ApiClientScope = (typeof API_CLIENT_SCOPES)[number];

/** A new client id: cli_ + 24 hex (96 random bits). */
export function newClientId(): string {
  return `cli_${randomBytes(12).toString('hex')}`;
}

/** A new client secret: cs_ + base64url of 256 random bits; only its hash is stored. */
export function newClientSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 hex of a secret (or token): a 256-bit random value needs no slow hash. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares a presented secret with the stored hash in constant time. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(sha256Hex(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
