import { Router, type NextFunction, type Request, type Response } from 'express';
import multer from 'multer';
import type { DependencyContainer } from 'tsyringe';
import { ENV } from '../../platform/tokens';
import { ApiError } from '../../platform/errors/api-error';
import { requireUser } from '../../platform/http/define-route';
import { PASSWORD_CHANGE_MESSAGES } from '../../platform/auth/principal';
import { requestScope } from '../../platform/tenant-scope/request-scope';
import { FilesService } from '../../courses';

/** The parts of a file request a defineRoute cannot express: multipart parsing and raw downloads. */
function authenticated(req: Request) {
  const scope = requestScope(req);
  const user = requireUser(scope.principal);
  if (user.mustChangePassword) throw new ApiError(418, `must change password: ${PASSWORD_CHANGE_MESSAGES[user.mustChangePassword]}`);
  return { scope, user };
}

/**
 * Mounted at /api/files, before the routes: POST /files checks the login before reading the upload
 * (multer, in memory, at most UPLOAD_MAX_BYTES, one file) and hands the file on to the
 * defineRoute handler as input.file; GET /files/:id/content streams the bytes.
 */
export function filesHttp(root: DependencyContainer): Router {
  const limit = root.resolve(ENV).UPLOAD_MAX_BYTES;
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: limit, files: 1, fields: 20, fieldSize: 64 * 1024 } }).single('file');
  const router = Router();

  router.post('/', (req: Request, res: Response, next: NextFunction) => {
    authenticated(req);
    if (!req.is('multipart/form-data')) return next();
    upload(req, res, (err: unknown) => {
      if (!err) {
        const f = req.file;
        if (f) req.body.file = { originalname: f.originalname, mimetype: f.mimetype, size: f.size, buffer: f.buffer };
        return next();
      }
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(new ApiError(413, `file too large: the limit is ${limit} bytes`, { limit_bytes: limit }));
        if (err.code === 'LIMIT_UNEXPECTED_FILE') return next(ApiError.malformed(err.field ?? 'file', 'send exactly one file, in the part named file'));
        return next(new ApiError(420, `malformed upload: ${err.message}`));
      }
      return next(new ApiError(420, 'malformed upload: the multipart body could not be read'));
    });
  });

  router.get('/:file_id/content', async (req: Request, res: Response) => {
    const { scope, user } = authenticated(req);
    const id = Number(req.params.file_id);
    if (!/^\d+$/.test(String(req.params.file_id)) || id < 1 || id > 2147483647) throw ApiError.malformed('file_id', 'must be a positive id');
    const files = scope.container.resolve(FilesService);
    const f = await files.find(id);
    files.assertVisible(user, f);
    const data = await files.content(f);
    // never rendered in the tenant's origin: an allow-listed type (else application/octet-stream), no sniffing, always a download
    res.setHeader('Content-Type', files.downloadType(f));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.file_name)}`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.send(data);
  });
  return router;
}
