import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { access } from '../../platform/http/access';
import { p } from '../../platform/http/param-types';
import { ARCHIVE_FORMAT, TenantAdminService, TenantImport, TenantSlug } from '../../tenancy';
import { TenantView, cluster, origin, progress, slug } from './platform-views';

/** Content types of a tenant-archive/1 upload (gzip); anything else is a tenant-import/1 document. */
const ARCHIVE_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];
const LEGACY_FORMAT = 'tenant-import/1';

/** A switch as this call has always read it: 1, true, yes or on (any case) is yes, any other value no; absent: the default. */
const flag = (description: string) =>
  z
    .unknown()
    .optional()
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a query value of any kind, read as its text (a query string gives strings)
    .transform((v) => (v === undefined ? undefined : ['1', 'true', 'yes', 'on'].includes(String(v).toLowerCase())))
    .meta({ type: 'string', description });

/** Whole tenants in and out: tenant-archive/1 (everything, streamed) and the older tenant-import/1 document. */
export const archiveRoutes = [
  // A tenant-archive/1 arrives as the raw body (gzip); a tenant-import/1 document as JSON.
  defineRoute({
    method: 'post',
    path: '/tenants/import',
    access: access.operator,
    resource: 'tenants',
    created: true,
    summary: 'Create a tenant from a tenant-archive/1 (gzip body) or tenant-import/1 document',
    description:
      'The two formats are told apart by Content-Type (application/gzip: an archive; JSON: a tenant-import/1 document). One transaction: an archive ' +
      "recreates the tenant exactly (same ids, sequences, files, config history), its schema migrated up to the archive's version and then on to the " +
      "server's; an archive of a newer schema is refused. A bad, truncated or incomplete archive is a 420 naming what is wrong and leaves nothing behind. " +
      "The answer lists progress lines. slug and host (repeatable) override the document's.",
    input: z.object({
      slug: TenantSlug.optional().describe("slug instead of the document's"),
      host: p.stringList().optional().describe("hosts instead of the document's (repeatable)"),
      hosts: p.stringList().optional().describe('the same as host (when host is not given)'),
      cluster,
    }),
    body: {
      description: 'a tenant-archive/1 (gzip) or a tenant-import/1 document (JSON)',
      content: { ...Object.fromEntries(ARCHIVE_TYPES.map((type) => [type, 'binary' as const])), 'application/json': TenantImport },
    },
    output: TenantView,
    extras: { progress },
    async handler(ctx, input) {
      const lines: string[] = [];
      const options = { slug: input.slug, hosts: input.host ?? input.hosts, cluster: input.cluster || undefined, onProgress: (l: string) => lines.push(l) };
      const admin = ctx.resolve(TenantAdminService).by(origin(ctx));
      const archive = ctx.body.stream(ARCHIVE_TYPES);
      const t = archive ? await admin.importArchive(archive, options) : await admin.import(ctx.body.parsed, options);
      return { body: { valid: true, message: `tenant ${t.slug} imported`, tenants: [t], progress: lines } };
    },
  }),
  // The archive by default (everything); ?format=tenant-import/1 keeps the bare JSON document
  // (no envelope, so it can be posted back) for clients of the older format.
  defineRoute({
    method: 'get',
    path: '/tenants/:slug/export',
    access: access.operator,
    resource: 'tenants',
    summary: 'Export a tenant (tenant-archive/1 gzip, or format=tenant-import/1 JSON)',
    description:
      "tenant-archive/1 (default), streamed: every table of the tenant schema from one snapshot, config items and their history, and the file store's bytes. " +
      'Secret config items and password hashes are included unless secrets=0 / password_hashes=0. format=tenant-import/1 answers the older hand-mapped ' +
      'document without an envelope (current registrations only; no files, messages, survey answers, history or audit log) so it can be posted back. Audited.',
    input: z.object({
      slug,
      format: z
        .enum([ARCHIVE_FORMAT, LEGACY_FORMAT], { error: `must be ${ARCHIVE_FORMAT} or ${LEGACY_FORMAT}` })
        .optional()
        .describe(`${ARCHIVE_FORMAT} (default) or ${LEGACY_FORMAT}`),
      secrets: flag('0 leaves secret config items out (default: included)'),
      password_hashes: flag('0 blanks password hashes (default: included; the archive only)'),
    }),
    answer: {
      description: `the ${ARCHIVE_FORMAT} (attachment <slug>.tenant.tar.gz), or with format=${LEGACY_FORMAT} the bare document`,
      content: { 'application/gzip': 'binary', 'application/json': TenantImport },
    },
    async handler(ctx, input) {
      const admin = ctx.resolve(TenantAdminService).by(origin(ctx));
      const secrets = input.secrets ?? true;
      if (input.format === LEGACY_FORMAT) return { body: await admin.export(input.slug, { secrets }) };
      // An unknown tenant is a 404 envelope, so look it up before the first byte of the archive.
      await admin.get(input.slug);
      return {
        contentType: 'application/gzip',
        headers: { 'Content-Disposition': `attachment; filename="${input.slug}.tenant.tar.gz"` },
        stream: (out) => admin.exportArchive(input.slug, out, { secrets, passwordHashes: input.password_hashes ?? true }),
      };
    },
  }),
];
