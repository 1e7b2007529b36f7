import { Liquid, type Template } from 'liquidjs';

/** Which part of a notice a template is: named in errors as `messagetemplate_data[<part>]`. */
export type TemplatePart = 'subject' | 'text' | 'html';

/** A template that cannot be parsed or rendered: the part, the line (when known) and why. */
export class TemplateError extends Error {
  constructor(
    readonly part: TemplatePart,
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(`${reason}${line ? ` (line ${line})` : ''}`);
  }
}

/** What the date filters need: the notice's language and the tenant's time zone. */
export interface RenderPlace {
  language: string;
  timeZone: string;
}

/** Bounds of one template (parse and render): long enough for any notice, short of harm. */
export const TEMPLATE_LIMITS = { maxChars: 20_000, renderMs: 250, memory: 2_000_000, outputChars: 100_000 } as const;
const FILE_TAGS = ['include', 'render', 'layout', 'block'] as const;

// No file system at all: the engine's loader refuses every lookup (the file tags are refused at parse anyway).
const noFiles = {
  readFileSync: (): string => {
    throw new Error('file access is not allowed in templates');
  },
  readFile: async (): Promise<string> => {
    throw new Error('file access is not allowed in templates');
  },
  existsSync: () => false,
  exists: async () => false,
  resolve: () => '',
  contains: () => false,
  sep: '/',
  dirname: () => '',
};

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
// English dates day-month-year and a 24-hour clock (unambiguous for every reader); other languages their own
const intlLocale = (language: string) => (language === 'en' ? 'en-GB' : language);

function formatter(place: RenderPlace, value: unknown, options: Intl.DateTimeFormatOptions): string {
  if (value === null || value === undefined || value === '') return '';
  // variables that are times are Dates or ISO strings; anything else is shown as it stands
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a template may hand any value to a date filter; String() is the fallback shown
  const s = value instanceof Date ? value.toISOString() : String(value);
  // a calendar date (valid_until) is the same day everywhere: no zone shift
  const date = dateOnly.test(s) ? new Date(`${s}T00:00:00Z`) : new Date(s);
  if (Number.isNaN(date.getTime())) return s;
  const timeZone = dateOnly.test(s) ? 'UTC' : place.timeZone;
  try {
    return new Intl.DateTimeFormat(intlLocale(place.language), { ...options, timeZone }).format(date);
  } catch {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(date);
  }
}

function engine(escape: boolean): Liquid {
  const liquid = new Liquid({
    fs: noFiles as never,
    relativeReference: false,
    dynamicPartials: false,
    strictVariables: true,
    strictFilters: true,
    ownPropertyOnly: true,
    parseLimit: TEMPLATE_LIMITS.maxChars,
    renderLimit: TEMPLATE_LIMITS.renderMs,
    memoryLimit: TEMPLATE_LIMITS.memory,
    ...(escape ? { outputEscape: 'escape' as const } : {}),
  });
  for (const tag of FILE_TAGS) {
    liquid.registerTag(tag, {
      parse() {
        throw new Error(`file access is not allowed in templates ({% ${tag} %})`);
      },
      render() {
        return '';
      },
    });
  }
  const place = (ctx: { globals: unknown }) => (ctx.globals as { notice: RenderPlace }).notice;
  liquid.registerFilter('format_date', function (this: { context: { globals: unknown } }, v: unknown) {
    return formatter(place(this.context), v, { year: 'numeric', month: 'long', day: 'numeric' });
  });
  liquid.registerFilter('format_datetime', function (this: { context: { globals: unknown } }, v: unknown) {
    return formatter(place(this.context), v, {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
  });
  liquid.registerFilter('format_time', function (this: { context: { globals: unknown } }, v: unknown) {
    return formatter(place(this.context), v, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  });
  return liquid;
}

const TEXT = engine(false);
const HTML = engine(true);
// parsed templates by part and source: the shipped texts and a tenant's few overrides are parsed once
const parsed = new Map<string, Template[]>();

function positioned(part: TemplatePart, err: unknown): TemplateError {
  const e = err as Error & { token?: { getPosition?: () => [number, number] }; originalError?: Error };
  let line: number | null;
  try {
    line = e.token?.getPosition?.()[0] ?? null;
  } catch {
    line = null;
  }
  const fromMessage = /line:(\d+)/.exec(e.message ?? '');
  if (line === null && fromMessage) line = Number(fromMessage[1]);
  const reason = String(e.message ?? err)
    .replace(/,? line:\d+, col:\d+.*$/s, '')
    .replace(/^[A-Za-z]+Error: /, '');
  return new TemplateError(part, line, reason || 'invalid template');
}

/** Parses a template (cached), or throws TemplateError naming the part and line. */
export function parseTemplate(part: TemplatePart, source: string): Template[] {
  const key = `${part}\u0000${source}`;
  const hit = parsed.get(key);
  if (hit) return hit;
  if (source.length > TEMPLATE_LIMITS.maxChars) throw new TemplateError(part, null, `too long: at most ${TEMPLATE_LIMITS.maxChars} characters`);
  let templates: Template[];
  try {
    templates = (part === 'html' ? HTML : TEXT).parse(source);
  } catch (err) {
    throw positioned(part, err);
  }
  if (parsed.size >= 1000) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, templates);
  return templates;
}

/**
 * Renders a template with the notice's variables; the HTML part escapes every output (`| raw` to
 * keep markup). Unknown variables and filters, file tags, a render past 250 ms or 2 MB of allocations,
 * and output past 100,000 characters are a TemplateError naming the part and the line.
 */
export async function renderTemplate(part: TemplatePart, source: string, data: Record<string, unknown>, place: RenderPlace): Promise<string> {
  const templates = parseTemplate(part, source);
  let out: string;
  try {
    out = await (part === 'html' ? HTML : TEXT).render(templates, data, { globals: { notice: place } });
  } catch (err) {
    throw positioned(part, err);
  }
  if (out.length > TEMPLATE_LIMITS.outputChars) throw new TemplateError(part, null, `renders too long: more than ${TEMPLATE_LIMITS.outputChars} characters`);
  return out;
}
