import { generateKeyPairSync } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { calculateJwkThumbprint, importPKCS8, type JWK, type KeyLike } from 'jose';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

export interface CredentialKeyRow {
  id: number;
  kid: string;
  public_jwk: JWK;
  private_key: string | null;
  created_by: number | null;
  created_at: Date;
  retired_at: Date | null;
  signed_until: Date | null;
  signed_unbounded: boolean;
}

/** The active key, ready to sign (a key for jose). */
export interface SigningKey {
  kid: string;
  key: KeyLike;
}

/** A new Ed25519 key pair: the public half as a JWK whose kid is its RFC 7638 thumbprint, the private half as PKCS#8 PEM. */
async function newKeyPair(): Promise<{ kid: string; publicJwk: JWK; privatePem: string }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return {
    kid,
    publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: 'EdDSA', use: 'sig' },
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/**
 * The tenant's Ed25519 keys for verifiable credentials (issue 38). One active key, made on first
 * use; a rotation retires it and makes the next. A key stays published (JWKS) while a credential it
 * signed may be valid: `noteSigned` records each credential's end before it is handed out. Write
 * methods run on a transaction's instance (`tx.get`); key changes of a tenant take turns (an
 * advisory lock), so two first uses at once make one key.
 */
@injectable()
export class CredentialKeys {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  private lock() {
    return this.db.raw('select pg_advisory_xact_lock(hashtext(?))', [`credential_keys:${this.db.schema}`]);
  }

  private active(): Promise<CredentialKeyRow | undefined> {
    return this.db.table('credential_keys').whereNull('retired_at').first();
  }

  private async create(createdBy: number | null): Promise<CredentialKeyRow> {
    const k = await newKeyPair();
    const [row] = await this.db
      .table('credential_keys')
      .insert({ kid: k.kid, public_jwk: JSON.stringify(k.publicJwk), private_key: k.privatePem, created_by: createdBy })
      .returning('*');
    return row;
  }

  private retire(id: number) {
    return this.db.table('credential_keys').where('id', id).update({ retired_at: this.db.fn.now() });
  }

  /**
   * The active key, made now when there is none, or when the active one has no private key (a
   * tenant archive exported without secrets): that one is retired and stays published.
   * `created` says a key was made (for the audit).
   */
  async ensureActive(createdBy: number | null): Promise<{ row: CredentialKeyRow; created: boolean; replaced?: string }> {
    const found = await this.active();
    if (found?.private_key) return { row: found, created: false };
    await this.lock();
    const again = await this.active();
    if (again?.private_key) return { row: again, created: false };
    if (again) await this.retire(again.id);
    return { row: await this.create(createdBy), created: true, replaced: again?.kid };
  }

  /** Retires the active key (if any) and makes the next one. */
  async rotate(createdBy: number | null): Promise<{ row: CredentialKeyRow; retired: string | null }> {
    await this.lock();
    const old = await this.active();
    if (old) await this.retire(old.id);
    return { row: await this.create(createdBy), retired: old?.kid ?? null };
  }

  /** The key's private half for jose. */
  async signingKey(row: CredentialKeyRow): Promise<SigningKey> {
    return { kid: row.kid, key: await importPKCS8(row.private_key!, 'EdDSA') };
  }

  /** Before a credential signed with `kid` is handed out: its key stays published at least until `until` (null: for good). */
  async noteSigned(kid: string, until: Date | null): Promise<void> {
    const q = this.db.table('credential_keys').where('kid', kid);
    if (until === null) await q.update({ signed_unbounded: true });
    else await q.update({ signed_until: this.db.raw('greatest(signed_until, ?::timestamptz)', [until.toISOString()]) });
  }

  /** Every key, newest first (no private halves). */
  list(): Promise<Omit<CredentialKeyRow, 'private_key'>[]> {
    return this.db
      .table('credential_keys')
      .select('id', 'kid', 'public_jwk', 'created_by', 'created_at', 'retired_at', 'signed_until', 'signed_unbounded')
      .orderBy('id', 'desc');
  }

  /** The public keys a verifier may need at `now`: the active one and retired ones a still valid credential names. */
  async published(now: Date): Promise<JWK[]> {
    const rows: Pick<CredentialKeyRow, 'public_jwk'>[] = await this.db
      .table('credential_keys')
      .where((w) => void w.whereNull('retired_at').orWhere('signed_unbounded', true).orWhere('signed_until', '>', now))
      .orderBy('id', 'desc')
      .select('public_jwk');
    return rows.map((r) => r.public_jwk);
  }
}
