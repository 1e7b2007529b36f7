/** What the frame of a notice mail shows: the tenant's name, colour and logo (config items). */
export interface MailBrand {
  tenantName: string;
  /** mail.brand_colour (#rrggbb), else DEFAULT_BRAND_COLOUR. */
  colour: string | null;
  /** mail.logo_url (https), else none: the name as text. */
  logoUrl: string | null;
}

export const DEFAULT_BRAND_COLOUR = '#333333';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The plain text as HTML: paragraphs at blank lines, line breaks kept, everything escaped. */
export function textToHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

/** White or near-black text, whichever reads better on the brand colour (WCAG relative luminance). */
function textOn(colour: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.179 ? '#111111' : '#ffffff';
}

/**
 * The HTML part of a notice mail: a whole document in the notice's language (`lang`), the subject as
 * its title and heading, the body in `<main>`, the tenant's name in a `<header>` band in the brand
 * colour (with the logo, its alt text the name) and a `<footer>`. Inline styles only (mail clients
 * drop style sheets); the colours keep WCAG AA contrast; no scripts, no tracking.
 */
export function noticeHtml(o: { language: string; subject: string; body: string; brand: MailBrand }): string {
  const colour = o.brand.colour && /^#[0-9a-fA-F]{6}$/.test(o.brand.colour) ? o.brand.colour : DEFAULT_BRAND_COLOUR;
  const name = escapeHtml(o.brand.tenantName);
  const logo = o.brand.logoUrl
    ? `<img src="${escapeHtml(o.brand.logoUrl)}" alt="${name}" height="40" style="display:block;max-height:40px;border:0">`
    : `<span style="font-size:18px;font-weight:bold">${name}</span>`;
  const lang = escapeHtml(o.language);
  return `<!DOCTYPE html>
<html lang="${lang}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f4;color:#111111;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5">
<div role="article" aria-roledescription="email" aria-label="${escapeHtml(o.subject)}" lang="${lang}" style="max-width:600px;margin:0 auto;background:#ffffff">
<header style="background:${colour};color:${textOn(colour)};padding:16px 24px">${logo}</header>
<main style="padding:8px 24px 16px">
<h1 style="font-size:20px;line-height:1.3;margin:16px 0">${escapeHtml(o.subject)}</h1>
${o.body}
</main>
<footer style="padding:12px 24px;border-top:1px solid #dddddd;color:#555555;font-size:13px"><p style="margin:0">${name}</p></footer>
</div>
</body>
</html>
`;
}
