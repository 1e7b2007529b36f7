import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: whsec_ + base64 of 32 random bytes (Standard Webhooks asks for 24 to 64). */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key: the base64-decoded part after whsec_. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/**
 * The webhook-signature header of Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * per secret, space-separated (two during the 24 h after a rotation, so a receiver with either
 * secret accepts the message).
 */
export function signatureHeader(msgId: string, timestamp: number, body: string, secrets: readonly string[]): string {
  const content = `${msgId}.${timestamp}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', keyOf(s)).update(content).digest('base64')}`).join(' ');
}
