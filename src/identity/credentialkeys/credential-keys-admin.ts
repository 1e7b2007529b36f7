import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { AuditTrail } from '../../platform/audit';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import { CredentialKeys, type CredentialKeyRow } from './credential-keys';

/** A key as superusers see it: the public half and its publication, never the private half. */
export interface CredentialKeyView {
  kid: string;
  public_jwk: Record<string, unknown>;
  active: boolean;
  published: boolean;
  published_until: string | null;
  created_at: string;
  retired_at: string | null;
}

export function presentCredentialKey(r: Omit<CredentialKeyRow, 'private_key'>, now: Date): CredentialKeyView {
  const active = r.retired_at === null;
  const until = r.signed_until ? new Date(r.signed_until) : null;
  return {
    kid: r.kid,
    public_jwk: { ...r.public_jwk },
    active,
    published: active || r.signed_unbounded || (until !== null && until > now),
    // null: for good (active, or it signed a credential without an end); else until its last credential ends
    published_until: active || r.signed_unbounded ? null : (until?.toISOString() ?? new Date(r.retired_at!).toISOString()),
    created_at: new Date(r.created_at).toISOString(),
    retired_at: r.retired_at ? new Date(r.retired_at).toISOString() : null,
  };
}

/** POST /api/credentialkeys/rotate and GET /api/credentialkeys (superusers): rotation in one transaction with its security event. */
@injectable()
export class CredentialKeysAdmin {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(CredentialKeys) private readonly keys: CredentialKeys,
  ) {}

  list(): Promise<Omit<CredentialKeyRow, 'private_key'>[]> {
    return this.keys.list();
  }

  rotate(user: Principal): Promise<CredentialKeyRow> {
    return this.uow.run(async (tx) => {
      const r = await tx.get(CredentialKeys).rotate(user.personId);
      await tx.get(AuditTrail).record({ type: 'credential_key.rotated', actor: user.userName, subject: r.row.kid, details: { retired: r.retired } });
      return r.row;
    });
  }
}
