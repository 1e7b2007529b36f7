import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { ApiError } from '../../platform/errors/api-error';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
export const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
/** Metadata documents above this size are refused (Entra's federation metadata is ~10 KB). */
export const MAX_METADATA_BYTES = 512 * 1024;

/** What a SAML sign-in needs from the identity provider's metadata. */
export interface IdpMetadata {
  /** The IdP's entityID: the Issuer its responses and assertions must carry. */
  entityId: string;
  /** SingleSignOnService Location for the HTTP-Redirect binding. */
  ssoUrl: string;
  /** Signing certificates, base64 DER as in the metadata (several during a key rollover). */
  certificates: string[];
}

const children = (el: Element, ns: string, name: string): Element[] => Array.from(el.getElementsByTagNameNS(ns, name) as unknown as ArrayLike<Element>);

/**
 * Reads an IdP's SAML 2.0 metadata (an EntityDescriptor, or the first EntitiesDescriptor entry with
 * an IDPSSODescriptor). Only reads values: signatures on SAML messages are node-saml's. A DOCTYPE is
 * refused outright (no entity expansion of any kind). `param` names the parameter in a 420.
 */
export function parseIdpMetadata(xml: string, param: string): IdpMetadata {
  const bad = (why: string) => ApiError.malformed(param, why);
  if (Buffer.byteLength(xml, 'utf8') > MAX_METADATA_BYTES) throw bad(`is larger than ${MAX_METADATA_BYTES / 1024} KB`);
  if (/<!DOCTYPE/i.test(xml)) throw bad('must not contain a DOCTYPE');
  let failure: string | null = null;
  const doc = new DOMParser({
    locator: {},
    errorHandler: { warning: () => undefined, error: (m: string) => (failure ??= m), fatalError: (m: string) => (failure ??= m) },
  }).parseFromString(xml, 'text/xml');
  if (failure || !doc?.documentElement)
    throw bad(
      `is not well-formed XML (${String(failure ?? 'empty')
        .split('\n')[0]
        .slice(0, 200)})`,
    );
  const root = doc.documentElement;
  if (root.namespaceURI !== MD || !['EntityDescriptor', 'EntitiesDescriptor'].includes(root.localName)) {
    throw bad('is not SAML 2.0 metadata (an md:EntityDescriptor)');
  }
  const entities = root.localName === 'EntityDescriptor' ? [root] : children(root, MD, 'EntityDescriptor');
  const entity = entities.find((e) => children(e, MD, 'IDPSSODescriptor').length > 0);
  if (!entity) throw bad("has no IDPSSODescriptor: it is not an identity provider's metadata");
  const entityId = entity.getAttribute('entityID')?.trim();
  if (!entityId) throw bad('has no entityID');
  const idp = children(entity, MD, 'IDPSSODescriptor')[0];
  const sso = children(idp, MD, 'SingleSignOnService').find((s) => s.getAttribute('Binding') === REDIRECT_BINDING);
  const ssoUrl = sso?.getAttribute('Location')?.trim();
  if (!ssoUrl) throw bad('names no SingleSignOnService with the HTTP-Redirect binding (the IdP SSO URL)');
  const certificates: string[] = [];
  for (const kd of children(idp, MD, 'KeyDescriptor')) {
    const use = kd.getAttribute('use');
    if (use && use !== 'signing') continue;
    for (const c of children(kd, DS, 'X509Certificate')) {
      const b64 = (c.textContent ?? '').replace(/\s+/g, '');
      try {
        new X509Certificate(Buffer.from(b64, 'base64'));
      } catch {
        throw bad('holds a signing certificate that cannot be read');
      }
      if (!certificates.includes(b64)) certificates.push(b64);
    }
  }
  if (certificates.length === 0) throw bad('holds no signing certificate (KeyDescriptor use="signing" with an X509Certificate)');
  return { entityId, ssoUrl, certificates };
}

/** The expiry of each stored certificate (base64 DER); unreadable ones are left out. */
export function certificateExpiries(certificates: string[]): string[] {
  return certificates.flatMap((b64) => {
    try {
      return [new Date(new X509Certificate(Buffer.from(b64, 'base64')).validTo).toISOString()];
    } catch {
      return [];
    }
  });
}
