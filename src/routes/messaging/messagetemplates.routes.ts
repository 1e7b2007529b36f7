import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject } from '../../platform/http/param-types';
import { policies } from '../../people';
import { MessageTemplatesService, NOTICE_TYPES, type TemplateListItem } from '../../messaging';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const noticeType = z.enum(NOTICE_TYPES, { message: `must be a notice type: ${NOTICE_TYPES.join(', ')}` });
const language = z.string().trim().min(2).max(35).describe('BCP 47 language tag; kept as its primary subtag (nb-NO → nb)');

const Override = z.object({
  language: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string().nullable().describe('null: the HTML is made from the text'),
  updated_at: z.string(),
  updated_by: z.string().nullable(),
});
const presentOverride = (r: { language: string; subject: string; text: string; html: string | null; updated_at: Date; updated_by: string | null }) => ({
  language: r.language,
  subject: r.subject,
  text: r.text,
  html: r.html,
  updated_at: iso(r.updated_at)!,
  updated_by: r.updated_by,
});

const TemplateOut = z
  .object({
    type: noticeType,
    security: z.boolean().describe('a security notice (password, contact change): cannot be turned off by the person'),
    variables: z.array(z.object({ name: z.string(), description: z.string() })).describe('what its templates may use; any other variable is a 420'),
    defaults: z.record(z.string(), z.object({ subject: z.string(), text: z.string() })).describe('the shipped texts (Liquid) per language'),
    overrides: z.array(Override).describe("the tenant's own texts, one per language"),
  })
  .describe('A notice the product sends itself, with its texts');
const present = (t: TemplateListItem) => ({ ...t, overrides: t.overrides.map(presentOverride) });

const Preview = z
  .object({
    language: z.string(),
    subject: z.string(),
    text: z.string().describe('plain text (and SMS body)'),
    html: z.string().describe('the whole HTML document of the mail'),
  })
  .describe('A notice rendered with sample data');

const part = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const TemplateData = z.object({
  language,
  subject: part(2000).optional(),
  text: part(20_000).optional(),
  html: part(20_000).nullable().optional().describe('optional HTML body (Liquid, output escaped; | raw keeps markup); empty: made from the text'),
});

const LIQUID =
  'Texts are Liquid templates (liquidjs) with the variables GET /api/messagetemplates lists and the filters format_date, format_datetime, format_time ' +
  "(the tenant's time zone, the language's format) plus Liquid's standard filters; include, render and layout (file access) are refused; " +
  'an unknown variable or filter, a syntax error or a render past 250 ms or its memory bound is a 420 naming messagetemplate_data[part] and the line ' +
  '(src/messaging/notices/README.md).';

/** The tenant's words for the notices the product sends itself (issue 39 item 4; superusers only). */
export const messageTemplateRoutes = [
  defineRoute({
    method: 'get',
    path: '/messagetemplates',
    access: policies.superuser('see message templates'),
    resource: 'messagetemplates',
    summary: "Every notice type with its variables, shipped texts per language and the tenant's overrides (superusers)",
    input: z.object({}),
    output: TemplateOut,
    async handler(ctx) {
      return { items: (await ctx.resolve(MessageTemplatesService).list()).map(present) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/messagetemplates/:type',
    access: policies.superuser('change message templates'),
    resource: 'messagetemplates',
    summary: "Set the tenant's subject, text and optional HTML of a notice for one language (superusers)",
    description: `messagetemplate_data: language, subject, text (both required), html (optional). ${LIQUID} Notices to persons of that language use it from the next one written; audited (message_template.updated).`,
    input: z.object({ type: noticeType, messagetemplate_data: z.preprocess(jsonObject, TemplateData) }),
    output: Override,
    idempotencyKey: true,
    async handler(ctx, input) {
      const saved = await ctx.resolve(MessageTemplatesService).put(ctx.user, input.type, input.messagetemplate_data);
      return { items: [presentOverride(saved)], message: `message template ${input.type} (${saved.language}) saved` };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/messagetemplates/:type',
    access: policies.superuser('change message templates'),
    resource: 'messagetemplates',
    summary: 'Back to the shipped text of a notice for one language (superusers)',
    description: 'language (required): the override to remove; 404 when there is none. Audited (message_template.deleted).',
    input: z.object({ type: noticeType, language }),
    idempotencyKey: true,
    async handler(ctx, input) {
      await ctx.resolve(MessageTemplatesService).delete(ctx.user, input.type, input.language);
      return { items: [], message: `message template ${input.type} (${input.language}) deleted: the shipped text is used` };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/messagetemplates/:type/preview',
    access: policies.superuser('preview message templates'),
    resource: 'messagetemplates',
    summary: 'Render a notice with sample data: the texts given (unsaved), else the stored override, else the shipped text (superusers)',
    description: `messagetemplate_data: language (required), subject, text, html (each optional). ${LIQUID} Nothing is stored or sent.`,
    input: z.object({ type: noticeType, messagetemplate_data: z.preprocess(jsonObject, TemplateData) }),
    output: Preview,
    async handler(ctx, input) {
      const r = await ctx.resolve(MessageTemplatesService).preview(input.type, input.messagetemplate_data);
      return { items: [{ language: r.language, subject: r.title, text: r.text, html: r.html }] };
    },
  }),
];
