import { describe, expect, it } from 'vitest';
import { useAcmeApp } from '../support/test-app';
import { TenantResolver } from '../../src/platform/tenant-scope/tenant-resolver';
import { openTenantScope } from '../../src/platform/tenant-scope/request-scope';
import { PersonAccess } from '../../src/people/person-access';
import { TENANT, TENANT_DB, TENANT_SCOPE } from '../../src/platform/tokens';

const bed = useAcmeApp();

/** Scopes are opened from one shared parent (cheaper per request): what each holds must stay its own. */
describe('tenant scopes', () => {
  it("container-scoped services are one per scope, shared within it; tenant, database and scope are the scope's", async () => {
    const tenant = (await bed.t.container.resolve(TenantResolver).byHostName(bed.acme.host))!;
    const a = openTenantScope(bed.t.container, tenant);
    const b = openTenantScope(bed.t.container, tenant);
    expect(a.resolve(PersonAccess)).toBe(a.resolve(PersonAccess));
    expect(a.resolve(PersonAccess)).not.toBe(b.resolve(PersonAccess));
    expect(a.resolve(TENANT)).toBe(tenant);
    expect(a.resolve(TENANT_SCOPE)).toBe(a);
    expect(b.resolve(TENANT_SCOPE)).toBe(b);
    expect(a.resolve(TENANT_DB)).not.toBe(b.resolve(TENANT_DB));
    expect(a.resolve(TENANT_DB).schema).toBe(tenant.schema);
    // nothing tenant-bound leaks into the root
    expect(bed.t.container.isRegistered(TENANT, true)).toBe(false);
  });
});
