import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { MailAttachment } from './mail-sender';

/** A file to attach to a message's e-mail. */
export interface NewAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/**
 * A message's files (message_attachments, tenant migration 270): the bytes in PostgreSQL (bytea),
 * written in the message's transaction, so the outbox never holds a message whose file is missing,
 * and removed with the message (cascade). The delivery reads them when it sends the e-mail (an SMS
 * carries none). Built on a transaction (`tx.get`), it works on that transaction.
 */
@injectable()
export class MessageAttachments {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  async add(messageId: number, files: readonly NewAttachment[]): Promise<void> {
    if (!files.length) return;
    await this.db
      .table('message_attachments')
      .insert(files.map((f) => ({ message_id: messageId, filename: f.filename, content_type: f.contentType, size: f.content.length, content: f.content })));
  }

  /** The files of these messages, by message id, in the order they were added. */
  async of(messageIds: readonly number[]): Promise<Map<number, MailAttachment[]>> {
    const out = new Map<number, MailAttachment[]>();
    if (!messageIds.length) return out;
    const rows: { message_id: number; filename: string; content_type: string; content: Buffer }[] = await this.db
      .table('message_attachments')
      .whereIn('message_id', [...new Set(messageIds)])
      .orderBy('id')
      .select('message_id', 'filename', 'content_type', 'content');
    for (const r of rows) out.set(r.message_id, [...(out.get(r.message_id) ?? []), { filename: r.filename, contentType: r.content_type, content: r.content }]);
    return out;
  }

  /** Names and sizes only (what a Message answer may show). */
  async listed(messageIds: readonly number[]): Promise<Map<number, { filename: string; content_type: string; size: number }[]>> {
    const out = new Map<number, { filename: string; content_type: string; size: number }[]>();
    if (!messageIds.length) return out;
    const rows: { message_id: number; filename: string; content_type: string; size: number }[] = await this.db
      .table('message_attachments')
      .whereIn('message_id', [...new Set(messageIds)])
      .orderBy('id')
      .select('message_id', 'filename', 'content_type', 'size');
    for (const { message_id, ...r } of rows) out.set(message_id, [...(out.get(message_id) ?? []), r]);
    return out;
  }
}
