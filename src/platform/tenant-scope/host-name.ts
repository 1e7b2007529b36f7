/** One RFC 1123 label: letters, digits and inner hyphens, 1-63 characters. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * True for a host name a tenant could have: RFC 1123 labels, at most 253 characters,
 * optionally followed by `:port`. Anything else cannot name a tenant, so it is refused
 * before it costs a database query or a cache entry.
 */
export function isValidHostName(value: string): boolean {
  let host = value.toLowerCase();
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    const port = host.slice(colon + 1);
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return false;
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253) return false;
  return host.split('.').every((label) => LABEL.test(label));
}

/**
 * The host name that chooses a request's tenant: express's `hostname` (Host, or X-Forwarded-Host
 * behind a trusted proxy, without the port), but only when the whole value (`host`, port included)
 * is a valid host[:port]. express cuts everything after the last colon, so `acme.localhost:notaport`
 * would otherwise be acme; it names no tenant (issue 40). Null: no usable host.
 */
export function tenantHostName(req: { readonly host?: string; readonly hostname?: string }): string | null {
  const host = req.host;
  if (!host || !req.hostname || !isValidHostName(host)) return null;
  return req.hostname;
}
