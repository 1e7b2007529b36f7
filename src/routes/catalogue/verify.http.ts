import express, { type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { tenantMiddleware } from '../../platform/http/tenant-middleware';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { TenantRateLimiter, type RateLimitRule } from '../../platform/rate-limit/tenant-rate-limiter';
import { VerifyCertificateFlow, type Verification } from '../../flows/certificates/verify-certificate';
import { escapeHtml, page, sendHtml } from '../tenancy/admin/landing-page';

/** Per tenant and client address: a verifier checks a few codes, a guesser many (and 192 bits leave nothing to guess). */
export const VERIFY_PER_ADDRESS: RateLimitRule = {
  name: 'verify:address',
  points: 60,
  durationSeconds: 60,
  message: 'too many verification requests; retry after the Retry-After seconds',
};

const STATUS_TEXT: Record<Verification['status'], string> = {
  valid: 'Valid: this certificate is genuine and in force.',
  expired: 'Expired: this certificate was genuine, but its validity has ended.',
  revoked: 'Revoked: this certificate is no longer valid.',
};
const REVOKED_WHY: Record<string, string> = {
  registration_removed: 'The registration it was issued for has been removed.',
  person_erased: "The holder's personal data has been erased.",
};

function verificationPage(v: Verification): string {
  const row = (term: string, value: string | null) => `    <dt>${term}</dt><dd>${escapeHtml(value ?? '-')}</dd>`;
  return page(
    `Certificate check: ${v.status}`,
    `<main>
  <h1>Certificate check</h1>
  <p class="verify-status ${v.status}" role="status">${STATUS_TEXT[v.status]}</p>
  ${v.revoked_reason ? `<p>${escapeHtml(REVOKED_WHY[v.revoked_reason] ?? '')}</p>` : ''}
  <dl class="verify-facts">
${[
  row('Name', v.name ?? 'not shown (erased)'),
  row('Competence', v.competence),
  row('Date', v.date),
  row('Valid until', v.valid_until ?? 'no end date'),
  row('Issued by', v.issuer),
].join('\n')}
  </dl>
</main>`,
    true,
  );
}

const notFoundPage = () =>
  page(
    'Certificate not found',
    '<main>\n  <h1>Certificate not found</h1>\n  <p>No certificate has this verification code. Check the address, or scan the QR code again.</p>\n</main>',
    true,
  );

/** The caller asks for JSON first (Accept); browsers and QR code scanners get the page. */
const wantsJson = (req: Request) => req.accepts(['html', 'json']) === 'json';

/**
 * GET /verify/<code> on the tenant's host (issue 38): no login, rate limited per client address;
 * a small page (no script; the admin style sheet) or, with Accept: application/json, the envelope
 * `{valid, message, certificates: [verification]}`. Unknown code: 404 (page or envelope).
 */
export function verifyHttp(container: DependencyContainer): express.Router {
  const router = express.Router();
  router.get('/:code', tenantMiddleware(container, { anonymous: true }), async (req: Request, res: Response) => {
    const scope = requestScope(req);
    const json = wantsJson(req);
    res.set({ 'Cache-Control': 'no-store', Vary: 'Accept' });
    try {
      await scope.container.resolve(TenantRateLimiter).hit(VERIFY_PER_ADDRESS, req.ip ?? '');
    } catch (err) {
      if (json || !(err instanceof ApiError)) throw err;
      res.set(err.headers ?? {});
      return sendHtml(res, err.status, page('Too many requests', `<main>\n  <h1>Too many requests</h1>\n  <p>${escapeHtml(err.message)}</p>\n</main>`, true));
    }
    const v = await scope.container.resolve(VerifyCertificateFlow).verify(String(req.params.code));
    if (!v) {
      if (json) throw ApiError.notFound('certificate with this verification code');
      return sendHtml(res, 404, notFoundPage());
    }
    if (!json) return sendHtml(res, 200, verificationPage(v));
    res.status(200).json({ valid: true, message: `certificate ${v.status}`, certificates: [v] });
  });
  return router;
}
