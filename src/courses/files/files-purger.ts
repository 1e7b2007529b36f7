import { inject, injectable } from 'tsyringe';
import type { PurgedTenant, TenantPurger } from '../../platform/tenant-scope/tenant-purgers';
import { FILE_STORE, type FileStore } from '../../platform/files/file-store';

/** A deleted tenant's uploaded files: the whole namespace (its schema name) in the file store. */
@injectable()
export class FilesPurger implements TenantPurger {
  readonly name = 'files';
  constructor(@inject(FILE_STORE) private readonly store: FileStore) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    return `${await this.store.removeNamespace(tenant.schema)} files`;
  }
}
