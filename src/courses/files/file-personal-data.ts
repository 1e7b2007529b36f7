import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT, TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { ErasureStep, PersonDataHolder, PersonKey, ExportPage } from '../../platform/privacy/personal-data';
import { FILE_STORE, type FileStore } from '../../platform/files/file-store';
import { presentFile, type StoredFile } from './files.service';

/** A person's uploaded files: exported as metadata with download_url, deleted on erasure (bytes after the commit). */
@injectable()
export class FileData implements PersonDataHolder {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(FILE_STORE) private readonly store: FileStore,
    @inject(LOGGER) private readonly log: Logger,
  ) {}

  async export(person: PersonKey, page: ExportPage) {
    const files: StoredFile[] = await this.db.table('files').where('person_id', person.id).select('*').orderBy('id').limit(page.limit).offset(page.offset);
    return { files: files.map((f) => presentFile({ ...f, user_name: person.user_name })) };
  }

  async erase(tx: Transaction, personId: number): Promise<ErasureStep> {
    const keys: string[] = (await tx.get(TENANT_DB).table('files').where('person_id', personId).delete().returning('storage_key')).map(
      (k: { storage_key: string }) => k.storage_key,
    );
    // The bytes cannot roll back with the rows: removed once the erasure committed. A failure leaves
    // no personal data readable through the API (the rows are gone); it is logged for a retry by hand.
    tx.afterCommit(async () => {
      for (const key of keys) {
        await this.store.remove(this.tenant.schema, key).catch((err) => this.log.error({ err, personId }, 'erasure: removing a file failed'));
      }
    });
    return { details: { files_deleted: keys.length } };
  }
}
