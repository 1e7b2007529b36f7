import { inject, injectable } from 'tsyringe';
import { FILE_STORE, type FileStore } from './file-store';
import type { PurgedTenant, TenantPurger } from '../tenants/tenant-purger';

/** Uploaded bytes of a deleted tenant: without this a restore under the same slug would meet the old ones. */
@injectable()
export class FilesPurger implements TenantPurger {
  readonly name = 'files';
  constructor(@inject(FILE_STORE) private readonly store: FileStore) {}

  async purge(tenant: PurgedTenant): Promise<string> {
    const count = (await this.store.list(tenant.schema)).length;
    await this.store.removeAll(tenant.schema);
    return `${count} files`;
  }
}
