import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { NOTICE_TYPES, SECURITY_NOTICE_TYPES, type NoticeType } from './notice-types';
import { NOTICE_VARIABLES, sampleData } from './notice-variables';
import { defaultTexts, SHIPPED_LANGUAGES, type NoticeTexts } from './notice-texts';
import { primaryLanguage } from './notice-language';
import { TemplateError } from './notice-liquid';
import { brandOf, renderTexts, type RenderedNotice } from './notice-renderer';
import { MessageTemplatesRepository, type TemplateRow } from './message-templates.repository';

/** messagetemplate_data of PUT and preview: the language and the parts given. */
export interface TemplateInput {
  language: string;
  subject?: string;
  text?: string;
  /** '' or null: no HTML of its own (made from the text). */
  html?: string | null;
}

export interface TemplateListItem {
  type: NoticeType;
  security: boolean;
  variables: { name: string; description: string }[];
  defaults: Record<string, { subject: string; text: string }>;
  overrides: TemplateRow[];
}

const PARAM = (part: string) => `messagetemplate_data[${part}]`;

/**
 * A tenant's words for the notices (issue 39 item 4): overrides of a notice's subject, text and
 * HTML per language (message_templates), checked on save by rendering them with the type's sample
 * data (syntax, unknown variables and filters, file tags, the render bounds: each a 420 naming the
 * part and the line); written with their audit entry; previewed saved or not.
 */
@injectable()
export class MessageTemplatesService {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(MessageTemplatesRepository) private readonly templates: MessageTemplatesRepository,
  ) {}

  async list(): Promise<TemplateListItem[]> {
    const rows = await this.templates.all();
    return NOTICE_TYPES.map((type) => ({
      type,
      security: SECURITY_NOTICE_TYPES.includes(type),
      variables: NOTICE_VARIABLES[type].map(({ name, description }) => ({ name, description })),
      defaults: Object.fromEntries(SHIPPED_LANGUAGES.map((l) => [l, (({ subject, text }) => ({ subject, text }))(defaultTexts(type, l))])),
      overrides: rows.filter((r) => r.type === type),
    }));
  }

  async put(user: Principal, type: NoticeType, input: TemplateInput): Promise<TemplateRow> {
    const language = this.language(input.language);
    if (input.subject === undefined) throw ApiError.missing(PARAM('subject'));
    if (input.text === undefined) throw ApiError.missing(PARAM('text'));
    const texts: NoticeTexts = { subject: input.subject, text: input.text, html: input.html || null };
    await this.check(type, language, texts);
    return this.uow.run(async (tx) => {
      const saved = await tx.get(MessageTemplatesRepository).upsert({ type, language, ...texts, updated_by: user.userName });
      const fields = ['subject', 'text', ...(texts.html ? ['html'] : [])];
      await tx.get(AuditTrail).record({ type: 'message_template.updated', actor: user.userName, subject: type, details: { language, fields } });
      return saved;
    });
  }

  async delete(user: Principal, type: NoticeType, languageTag: string): Promise<void> {
    const language = this.language(languageTag, 'language');
    await this.uow.run(async (tx) => {
      if (!(await tx.get(MessageTemplatesRepository).delete(type, language))) throw ApiError.notFound(`message template ${type} in ${language}`);
      await tx.get(AuditTrail).record({ type: 'message_template.deleted', actor: user.userName, subject: type, details: { language } });
    });
  }

  /** Renders the given parts, the rest from the stored override of that language, else the shipped text, with sample data. */
  async preview(type: NoticeType, input: TemplateInput): Promise<RenderedNotice> {
    const language = this.language(input.language);
    const stored = await this.templates.find(type, language);
    const base: NoticeTexts = stored
      ? { subject: stored.subject, text: stored.text, html: stored.html }
      : defaultTexts(type, SHIPPED_LANGUAGES.includes(language) ? language : 'en');
    const texts: NoticeTexts = {
      subject: input.subject ?? base.subject,
      text: input.text ?? base.text,
      html: input.html === undefined ? base.html : input.html || null,
    };
    return this.check(type, language, texts);
  }

  /** Renders with the sample data: any failure is a 420 naming the part and the line. */
  private async check(type: NoticeType, language: string, texts: NoticeTexts): Promise<RenderedNotice> {
    let out: RenderedNotice;
    const data: Record<string, unknown> = { tenant_name: this.tenant.name, ...sampleData(type) };
    try {
      out = await renderTexts(texts, data, { language, timeZone: this.tenant.config.get('tenant.timezone') }, brandOf(this.tenant));
    } catch (err) {
      if (err instanceof TemplateError) throw ApiError.malformed(PARAM(err.part), err.message);
      throw err;
    }
    // a password notice without the password would lock the person out
    if ((type === 'login_created' || type === 'password_reset') && !out.text.includes(String(data.password))) {
      throw ApiError.malformed(PARAM('text'), 'must show the password: use {{ password }}');
    }
    if ((type === 'login_created' || type === 'password_reset') && texts.html && !out.html.includes(String(data.password))) {
      throw ApiError.malformed(PARAM('html'), 'must show the password: use {{ password }}');
    }
    if (!out.title) throw ApiError.malformed(PARAM('subject'), 'renders empty');
    return out;
  }

  /** A BCP 47 tag, kept as its primary language subtag (notices choose by it). */
  private language(tag: string, param = PARAM('language')): string {
    const primary = primaryLanguage(tag);
    if (!primary || !/^[a-z]{2,3}$/.test(primary)) throw ApiError.malformed(param, 'must be a BCP 47 language tag such as en, nb or sv');
    return primary;
  }
}
