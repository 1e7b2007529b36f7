import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { p, fieldsShape } from '../../platform/http/param-types';
import { EventsService, FileView, FilesService, presentFile } from '../../courses';
import { policies } from '../../people';
import { FileViewsFlow } from '../../flows/files/file-views';

const uploaded = z.object(
  { originalname: z.string(), mimetype: z.string(), size: z.number(), buffer: z.instanceof(Buffer) },
  { message: 'must be a file (multipart/form-data part named file)' },
);

export const fileRoutes = [
  defineRoute({
    method: 'post',
    path: '/files',
    access: policies.selfOrActingManager('user_name', 'upload files for this person'),
    resource: 'files',
    summary: 'Uploads a file (multipart/form-data, part "file") for the caller or user_name; ceid shares it with the event instructor',
    description:
      'Size limit UPLOAD_MAX_BYTES (413 beyond it). Download with GET /api/files/[file_id]/content. user_name: upload for someone (their manager, not for a person who manages the caller, or a superuser). ' +
      'The login is checked before the upload is read. filetitle defaults to the file name; ceid must name an existing event. One file per request. ' +
      "The bytes are stored per tenant behind FileStore (default DATA_DIR/files). The spec leaves the answer's contents open: it is the File description below.",
    output: FileView,
    input: z.object({
      file: uploaded,
      user_name: p.string(200).min(1).optional(),
      filetitle: p.string(500).optional(),
      ceid: p.id().optional(),
      ...fieldsShape,
    }),
    async handler(ctx, input) {
      const owner = ctx.target;
      if (input.ceid) await ctx.resolve(EventsService).get(input.ceid);
      // eslint-disable-next-line no-control-regex -- control characters are replaced in a file name
      const name = input.file.originalname.replace(/[\u0000-\u001f/\\]/g, '_').slice(0, 255) || 'file';
      const id = await ctx.resolve(FilesService).save({
        ownerId: owner.id,
        uploadedBy: ctx.user.personId,
        eventId: input.ceid ?? null,
        title: input.filetitle || name,
        fileName: name,
        mimeType: input.file.mimetype || 'application/octet-stream',
        data: input.file.buffer,
      });
      return { items: [presentFile(await ctx.resolve(FileViewsFlow).find(id))], message: 'file stored' };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/files/:file_id',
    access: policies.userThen('its owner, its uploader, a superuser, the instructor of its event (ceid)'),
    resource: 'files',
    summary: "A file's description; the bytes are at GET /api/files/[file_id]/content",
    description: "Visible to the owner, the uploader, a superuser and, with ceid, the event's instructor; others 403.",
    output: FileView,
    input: z.object({ file_id: p.id(), ...fieldsShape }),
    async handler(ctx, input) {
      const f = await ctx.resolve(FileViewsFlow).find(input.file_id);
      ctx.resolve(FilesService).assertVisible(ctx.user, f);
      return { items: [presentFile(f)] };
    },
  }),
];
