import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { ApiError } from '../../platform/errors/api-error';
import { TenantStore } from '../../platform/tenant-scope/tenant-store';
import { openTenantScope } from '../../platform/tenant-scope/request-scope';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { CLIENT_IP, ENV } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { NEW_TENANT_CONFIG } from '../../platform/config-items/swt-config-items';
import { configItemDefinition } from '../../platform/config-items/config-item-registry';
import { ConfigItemsAdminService } from '../config-items-admin/config-items-admin.service';
import { TenantAdminService, type OperatorOrigin, type TenantSummary } from './tenant-admin.service';

/** The first superuser of a new tenant. */
export const FirstAdmin = z.object({
  user_name: z.string().trim().min(1).max(200),
  email: z.string().trim().email(),
  firstname: z.string().trim().min(1).max(200).optional(),
  lastname: z.string().trim().min(1).max(200).optional(),
});
export type FirstAdmin = z.infer<typeof FirstAdmin>;

/**
 * Operator actions inside one tenant (its config items; its persons through the flows), shared by
 * the CLI and /platform. They run in the tenant's scope so the tenant's own services (the config
 * PUT, the password mail) do the work, audited with actor `operator`.
 */
export class TenantOperator {
  constructor(
    private readonly root: DependencyContainer,
    private readonly origin: OperatorOrigin,
  ) {}

  /** The tenant's own scope, with the operator's address as the client's (404 for an unknown slug). */
  async tenantScope(slug: string): Promise<{ tenant: Tenant; container: DependencyContainer }> {
    const store = this.root.resolve(TenantStore);
    const id = typeof slug === 'string' ? await store.findIdBySlug(slug) : null;
    const tenant = id === null ? null : await store.load(id);
    if (!tenant) throw new ApiError(404, `tenant ${slug} not found`);
    const container = openTenantScope(this.root, tenant);
    // tsyringe takes useValue: null for no provider at all (the CLI has no address); a factory may answer null.
    const ip = this.origin.ip ?? null;
    container.register(CLIENT_IP, { useFactory: () => ip });
    return { tenant, container };
  }

  /**
   * A new tenant with a root organisation named after it and its first superuser in it. Mailing
   * them a password is the operator-passwords flow's step (src/flows/tenants), which calls this.
   */
  async importWithAdmin(
    input: { slug: string; name: string; hosts: string[]; mailFrom?: unknown; cluster?: string },
    admin: unknown,
    onProgress?: (l: string) => void,
  ): Promise<{ summary: TenantSummary; admin: FirstAdmin }> {
    // Without a sender the password mail would fail for good in the worker, after the tenant exists:
    // mail_from, or the platform's default sender (MAIL_FROM).
    const mailFrom = typeof input.mailFrom === 'string' && input.mailFrom.trim() ? input.mailFrom.trim() : null;
    if (input.mailFrom !== undefined && input.mailFrom !== null && typeof input.mailFrom !== 'string') throw ApiError.malformed('mail_from', 'must be text');
    if (!mailFrom && !this.root.resolve<Env>(ENV).MAIL_FROM) throw ApiError.missing('mail_from');
    const parsed = FirstAdmin.safeParse(admin);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw ApiError.malformed(`admin.${issue.path.join('.')}`, issue.message);
    }
    const a = parsed.data;
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name) throw ApiError.missing('name');
    if (!input.hosts?.length) throw ApiError.missing('hosts');
    const adminService = this.root.resolve(TenantAdminService).by(this.origin);
    const summary = await adminService.import(
      {
        format: 'tenant-import/1',
        tenant: { slug: input.slug, name, hosts: input.hosts },
        config: { ...NEW_TENANT_CONFIG, ...(mailFrom ? { 'mail.from': mailFrom } : {}) },
        organisations: [{ ref: 'root', name }],
        persons: [
          { user_name: a.user_name, email: a.email, firstname: a.firstname ?? a.user_name, lastname: a.lastname ?? '', organisation: 'root', superuser: true },
        ],
      },
      { onProgress, cluster: input.cluster },
    );
    return { summary, admin: a };
  }

  /** Secrets as is_set only, like the tenant admin's list. */
  async configItems(slug: string) {
    const { container } = await this.tenantScope(slug);
    return container.resolve(ConfigItemsAdminService).list();
  }

  async setConfigItem(slug: string, id: string, value: unknown) {
    const { container } = await this.tenantScope(slug);
    const def = configItemDefinition(id);
    if (!def) throw new ApiError(404, `config item ${id} not found`);
    return container.resolve(ConfigItemsAdminService).setAs('operator', def, value);
  }
}
