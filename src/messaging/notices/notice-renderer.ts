import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { LOGGER, TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { NoticeType } from './notice-types';
import { defaultTexts, SHIPPED_LANGUAGES, type NoticeTexts } from './notice-texts';
import { chooseLanguage } from './notice-language';
import { renderTemplate, type RenderPlace } from './notice-liquid';
import { noticeHtml, textToHtml, type MailBrand } from './notice-html';
import { MessageTemplatesRepository, type TemplateRow } from './message-templates.repository';

/** A notice as written into the outbox: subject, plain text (also the SMS body) and the mail's HTML. */
export interface RenderedNotice {
  title: string;
  text: string;
  html: string;
  language: string;
}

// The title becomes a mail subject: no line break may reach the header.
const oneLine = (s: string) =>
  s
    .replace(/[\r\n]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim()
    .slice(0, 500);

/** The tenant's brand for the mail's frame (config items mail.brand_colour, mail.logo_url). */
export function brandOf(tenant: Tenant): MailBrand {
  return { tenantName: tenant.name, colour: tenant.config.get('mail.brand_colour'), logoUrl: tenant.config.get('mail.logo_url') };
}

/** Renders texts (a template set) with the notice's variables: subject, text and the HTML document. */
export async function renderTexts(texts: NoticeTexts, data: Record<string, unknown>, place: RenderPlace, brand: MailBrand): Promise<RenderedNotice> {
  const title = oneLine(await renderTemplate('subject', texts.subject, data, place));
  const text = (await renderTemplate('text', texts.text, data, place)).trim();
  const body = texts.html ? await renderTemplate('html', texts.html, data, place) : textToHtml(text);
  return { title, text, html: noticeHtml({ language: place.language, subject: title, body, brand }), language: place.language };
}

/**
 * Writes a notice's words (issue 39 items 3 and 4): in the recipient's language, else the tenant's
 * `tenant.language`, else English (notice-language.ts), from the tenant's override of that notice
 * and language when there is one (message_templates), else the shipped texts (locales/, i18next).
 * Dates in the tenant's time zone (`tenant.timezone`) and the language's format. Called when the
 * notice is written, in the change's transaction (`tx.get`), so the override read is the
 * transaction's. An override that fails now (it was valid when saved: e.g. a render past its time
 * bound) is logged and the shipped text is used: a notice is never lost to a template.
 */
@injectable()
export class NoticeRenderer {
  private readonly overrides = new Map<NoticeType, Promise<TemplateRow[]>>();

  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(MessageTemplatesRepository) private readonly templates: MessageTemplatesRepository,
  ) {}

  async render(type: NoticeType, data: Record<string, unknown>, recipientLanguage: string | null | undefined): Promise<RenderedNotice> {
    if (!this.overrides.has(type)) this.overrides.set(type, this.templates.ofType(type));
    const rows = await this.overrides.get(type)!;
    const language = chooseLanguage(
      recipientLanguage,
      this.tenant.config.get('tenant.language'),
      (l) => SHIPPED_LANGUAGES.includes(l) || rows.some((r) => r.language === l),
    );
    const place: RenderPlace = { language, timeZone: this.tenant.config.get('tenant.timezone') };
    const vars = { tenant_name: this.tenant.name, ...data };
    const brand = brandOf(this.tenant);
    const own = rows.find((r) => r.language === language);
    if (own) {
      try {
        return await renderTexts({ subject: own.subject, text: own.text, html: own.html }, vars, place, brand);
      } catch (err) {
        this.logger.warn({ type, language, err: (err as Error).message }, "the tenant's message template failed; the shipped text is used");
      }
    }
    const shipped = SHIPPED_LANGUAGES.includes(language) ? language : 'en';
    return renderTexts(defaultTexts(type, shipped), vars, { ...place, language: shipped }, brand);
  }
}
