import { createHmac } from 'node:crypto';

/** Secrets and issuers of the demo fixtures (seeds/acme.json, seeds/globex.json). */
export const ACME_SWT = { secret: 'acme-swt-shared-secret-0123456789abcdef', issuer: 'https://idp.acme.example' };
export const GLOBEX_SWT = { secret: 'globex-swt-secret-fedcba9876543210', issuer: 'globex-hr' };

/** Builds a token the way an identity provider would, independently of src/identity/sso/swt-token.ts. */
export function swtToken(secret: string, pairs: Record<string, string | number>): string {
  const signed = new URLSearchParams(Object.entries(pairs).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const sig = createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest('base64');
  return `${signed}&HMACSHA256=${encodeURIComponent(sig)}`;
}

export const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
