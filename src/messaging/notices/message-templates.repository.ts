import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

/** A tenant's override of one notice in one language (table message_templates, migration 340). */
export interface TemplateRow {
  type: string;
  language: string;
  subject: string;
  text: string;
  html: string | null;
  updated_at: Date;
  updated_by: string | null;
}

/** The overrides' rows. Through `tx.get` when written with the change (a PUT and its audit entry). */
@injectable()
export class MessageTemplatesRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  all(): Promise<TemplateRow[]> {
    return this.db.table('message_templates').select('*').orderBy(['type', 'language']);
  }

  ofType(type: string): Promise<TemplateRow[]> {
    return this.db.table('message_templates').where({ type }).select('*');
  }

  async find(type: string, language: string): Promise<TemplateRow | undefined> {
    return this.db.table('message_templates').where({ type, language }).first();
  }

  async upsert(row: Omit<TemplateRow, 'updated_at'>): Promise<TemplateRow> {
    const [saved] = await this.db
      .table('message_templates')
      .insert({ ...row, updated_at: this.db.fn.now() })
      .onConflict(['type', 'language'])
      .merge(['subject', 'text', 'html', 'updated_at', 'updated_by'])
      .returning('*');
    return saved as TemplateRow;
  }

  /** True when there was one to delete. */
  async delete(type: string, language: string): Promise<boolean> {
    return (await this.db.table('message_templates').where({ type, language }).delete()) > 0;
  }
}
