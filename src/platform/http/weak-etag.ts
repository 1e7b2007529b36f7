import { hash } from 'node:crypto';

/** The ETag of an empty body, as the etag package gives it. */
const EMPTY = 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';

/**
 * express's default weak ETag (`W/"<length hex>-<first 27 characters of the base64 SHA-1>"`, the
 * etag package), with node's one-shot crypto.hash instead of a Hash object per response
 * (createHash, update, digest). The same bytes in give the same tag, so validators that clients
 * hold stay valid. Set with app.set('etag', weakEtag); express calls it with the body as a Buffer.
 */
export function weakEtag(body: Buffer | string, encoding?: BufferEncoding): string {
  const buf = typeof body === 'string' ? Buffer.from(body, encoding) : body;
  if (buf.length === 0) return EMPTY;
  return `W/"${buf.length.toString(16)}-${hash('sha1', buf, 'base64').substring(0, 27)}"`;
}
