/**
 * Types a download may be sent as: documents, images, audio and video a browser shows or hands to
 * another program, never one it runs as active content in the tenant's origin (text/html,
 * image/svg+xml, XML, JavaScript...). Anything else, and anything unparsable, is
 * application/octet-stream. The uploader's Content-Type is only a claim: with nosniff and
 * `attachment` the browser neither guesses nor renders.
 */
export const DOWNLOAD_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'application/zip',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'text/plain',
  'text/csv',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/mp4',
  'video/mp4',
  'video/webm',
]);

/** The stored type without parameters, lower-cased, if on DOWNLOAD_TYPES; else application/octet-stream. */
export function downloadContentType(stored: string | null | undefined): string {
  const bare = String(stored ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  return DOWNLOAD_TYPES.has(bare) ? bare : 'application/octet-stream';
}
