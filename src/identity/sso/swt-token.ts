import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Simple Web Token (SWT 0.9.5.1) checks as pure functions: no tenant, no database.
 * A token is form-encoded pairs; the last pair is HMACSHA256=<base64 signature> and the
 * signed string is exactly the bytes before `&HMACSHA256=`.
 */

const SIGNATURE_PAIR = '&HMACSHA256=';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const MAX_TOKEN_LENGTH = 4096;

/** Which check refused the token; the message says it without echoing secret material. */
export class SwtRejected extends Error {
  constructor(
    readonly check: 'format' | 'secret' | 'signature' | 'issuer' | 'expiry' | 'lifetime' | 'user',
    message: string,
  ) {
    super(message);
  }
}

export type SecretEncoding = 'text' | 'base64';

export interface SplitToken {
  /** The string the HMAC covers, as received. */
  signed: string;
  /** The decoded signature bytes. */
  signature: Buffer;
  /** The form-decoded parameters of the signed part (names unique). */
  params: Map<string, string>;
}

/** The HMAC key bytes of a tenant secret. */
export function secretKey(secret: string, encoding: SecretEncoding): Buffer {
  if (encoding === 'text') return Buffer.from(secret, 'utf8');
  const compact = secret.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 !== 0) {
    throw new SwtRejected('secret', 'the tenant SWT secret is configured as base64 but is not valid base64');
  }
  return Buffer.from(compact, 'base64');
}

/**
 * Header values reach Node as latin1 (one char per byte), so latin1 gives back exactly the
 * bytes the client signed.
 */
export function computeSignature(signed: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(Buffer.from(signed, 'latin1')).digest();
}

function formDecode(part: string, what: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new SwtRejected('format', `${what} is not correctly URL-encoded`);
  }
}

export function splitToken(token: string): SplitToken {
  if (token.length > MAX_TOKEN_LENGTH) throw new SwtRejected('format', `the token is longer than ${MAX_TOKEN_LENGTH} characters`);
  const at = token.lastIndexOf(SIGNATURE_PAIR);
  if (at <= 0) throw new SwtRejected('format', 'the token has no HMACSHA256 parameter after the signed parameters');
  const signed = token.slice(0, at);
  const rawSignature = token.slice(at + SIGNATURE_PAIR.length);
  if (rawSignature.includes('&')) throw new SwtRejected('format', 'HMACSHA256 must be the last parameter of the token');

  // URL-encoded (%2B, %2b, %2F, %3D) or raw base64; '+' stays '+' here, it is a base64 digit.
  let b64: string;
  try {
    b64 = decodeURIComponent(rawSignature);
  } catch {
    throw new SwtRejected('format', 'the HMACSHA256 value is not correctly URL-encoded');
  }
  if (!BASE64.test(b64) || b64.length % 4 !== 0) throw new SwtRejected('format', 'the HMACSHA256 value is not base64');
  const signature = Buffer.from(b64, 'base64');
  if (signature.length !== 32) throw new SwtRejected('format', 'the HMACSHA256 value is not a 32-byte HMAC-SHA256');

  const params = new Map<string, string>();
  for (const pair of signed.split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new SwtRejected('format', 'every token parameter must be name=value');
    const name = formDecode(pair.slice(0, eq), 'a parameter name');
    // Two values for one name would let signer and reader disagree about which one counts.
    if (params.has(name) || name === 'HMACSHA256') throw new SwtRejected('format', `parameter ${name} appears more than once`);
    params.set(name, formDecode(pair.slice(eq + 1), `parameter ${name}`));
  }
  return { signed, signature, params };
}

/** Constant-time comparison of the received signature with ours. */
export function signatureMatches(split: Pick<SplitToken, 'signed' | 'signature'>, key: Buffer): boolean {
  const expected = computeSignature(split.signed, key);
  return split.signature.length === expected.length && timingSafeEqual(split.signature, expected);
}

export interface SwtChecks {
  secret: string;
  /** Also accepted while set: the key before the current one, for rotation without downtime. */
  previousSecret?: string | null;
  encoding: SecretEncoding;
  /** null: any Issuer is accepted. */
  issuer: string | null;
  clockSkewSeconds: number;
  /** Refuse tokens without ExpiresOn. */
  requireExpiresOn?: boolean;
  /** Refuse tokens whose ExpiresOn lies further ahead than now + this (plus the clock skew). */
  maxLifetimeSeconds?: number | null;
  nowSeconds?: number;
}

export type SwtCheckName = SwtRejected['check'];

/** One step's outcome, for the admin page's SWT checker; detail never holds key material. */
export interface SwtCheckResult {
  check: SwtCheckName;
  ok: boolean;
  detail: string;
}

type Step = { check: SwtCheckName; run(split: SplitToken, checks: SwtChecks, now: number): string };

/** After format, in this order; each throws SwtRejected or says why it passed. */
const STEPS: Step[] = [
  {
    check: 'signature',
    run(split, checks) {
      const secrets = [checks.secret, ...(checks.previousSecret ? [checks.previousSecret] : [])];
      // Every key is tried (no early exit), so the answer time does not tell which key nearly matched.
      const matches = secrets.map((secret) => signatureMatches(split, secretKey(secret, checks.encoding)));
      if (!matches.includes(true)) {
        throw new SwtRejected('signature', 'the HMACSHA256 signature does not match the token and the shared secret');
      }
      return matches[0] ? 'signed with the current secret (api.oauth.secret)' : 'signed with the previous secret (api.oauth.previous_secret)';
    },
  },
  {
    check: 'issuer',
    run(split, checks) {
      const issuer = split.params.get('Issuer');
      if (checks.issuer === null) return 'any Issuer is accepted (api.oauth.issuer is empty)';
      // With an expected issuer a token must name it: one without Issuer is refused too (issue 40).
      if (issuer === undefined) throw new SwtRejected('issuer', 'the token has no Issuer, which this tenant requires (api.oauth.issuer is set)');
      if (issuer !== checks.issuer) throw new SwtRejected('issuer', 'the Issuer is not the one configured for this tenant (api.oauth.issuer)');
      return 'the Issuer is the configured one';
    },
  },
  {
    check: 'expiry',
    run(split, checks, now) {
      const expiresOn = split.params.get('ExpiresOn');
      if (expiresOn === undefined && checks.requireExpiresOn) {
        throw new SwtRejected('expiry', 'the token has no ExpiresOn, which this tenant requires (api.oauth.require_expires_on)');
      }
      if (expiresOn === undefined) return 'the token has no ExpiresOn (optional for this tenant)';
      if (!/^\d{1,12}$/.test(expiresOn)) throw new SwtRejected('expiry', 'ExpiresOn must be a unix time in whole seconds');
      if (now > Number(expiresOn) + checks.clockSkewSeconds) throw new SwtRejected('expiry', 'the token has expired (ExpiresOn is in the past)');
      return `valid for ${Number(expiresOn) - now} more seconds`;
    },
  },
  {
    check: 'lifetime',
    run(split, checks, now) {
      const expiresOn = split.params.get('ExpiresOn');
      const max = checks.maxLifetimeSeconds;
      if (expiresOn !== undefined && max != null && Number(expiresOn) > now + max + checks.clockSkewSeconds) {
        throw new SwtRejected('lifetime', `ExpiresOn lies more than ${max} seconds ahead (api.oauth.max_token_lifetime_seconds)`);
      }
      return max == null ? 'no lifetime limit' : `at most ${max} seconds ahead`;
    },
  },
];

/** Format, signature, Issuer, ExpiresOn and lifetime, in that order; returns the trusted parameters. */
export function verifySwt(token: string, checks: SwtChecks): Map<string, string> {
  const split = splitToken(token);
  const now = checks.nowSeconds ?? Math.floor(Date.now() / 1000);
  for (const step of STEPS) step.run(split, checks, now);
  return split.params;
}

/**
 * The same steps as verifySwt, but every one reported instead of stopping at the first
 * refusal (a format error stops the rest: there is nothing to check). `params` only when
 * every step passed, so nothing trusts a refused token; `claimed` is what the token says,
 * trusted or not, for explaining it.
 */
export function explainSwt(
  token: string,
  checks: SwtChecks,
): { results: SwtCheckResult[]; params: Map<string, string> | null; claimed: Map<string, string> | null } {
  let split: SplitToken;
  try {
    split = splitToken(token);
  } catch (err) {
    if (!(err instanceof SwtRejected)) throw err;
    return { results: [{ check: 'format', ok: false, detail: err.message }], params: null, claimed: null };
  }
  const results: SwtCheckResult[] = [{ check: 'format', ok: true, detail: `parameters: ${[...split.params.keys()].join(', ')}` }];
  const now = checks.nowSeconds ?? Math.floor(Date.now() / 1000);
  for (const step of STEPS) {
    try {
      results.push({ check: step.check, ok: true, detail: step.run(split, checks, now) });
    } catch (err) {
      if (!(err instanceof SwtRejected)) throw err;
      results.push({ check: err.check, ok: false, detail: err.message });
    }
  }
  return { results, params: results.every((r) => r.ok) ? split.params : null, claimed: split.params };
}

/** Builds a signed token (tests, and documentation of the exact format). */
export function signSwt(pairs: [string, string][], key: Buffer): string {
  const signed = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${signed}${SIGNATURE_PAIR}${encodeURIComponent(computeSignature(signed, key).toString('base64'))}`;
}
