import http from 'node:http';
import https from 'node:https';
import { ApiError } from '../../platform/errors/api-error';
import { MAX_METADATA_BYTES } from './saml-metadata';

const TIMEOUT_MS = 5000;
let agents: Promise<{ http: http.Agent; https: https.Agent }> | undefined;
let agentsPrivate: boolean | undefined;

/** SSRF-safe agents for calls to an identity provider (metadata, OIDC discovery, JWKS, token). */
export function filteringAgents(allowPrivate: boolean): Promise<{ http: http.Agent; https: https.Agent }> {
  if (!agents || agentsPrivate !== allowPrivate) {
    agentsPrivate = allowPrivate;
    // request-filtering-agent is an ES module; this CommonJS build loads it with import()
    agents = import('request-filtering-agent').then((m) => {
      const options = { keepAlive: false, allowPrivateIPAddress: allowPrivate };
      return { http: new m.RequestFilteringHttpAgent(options), https: new m.RequestFilteringHttpsAgent(options) };
    });
  }
  return agents;
}

/**
 * GET an IdP's metadata once, when the provider is saved (never at sign-in). The URL rules are the
 * issuers' (https; http only with IDENTITY_PROVIDERS_ALLOW_HTTP=1) and the connection is
 * SSRF-safe like webhook deliveries: request-filtering-agent refuses loopback, private, link-local
 * and other non-public addresses at connect time (after DNS), unless the same flag is set
 * (tests, on-premise IdPs). No redirect is followed, at most MAX_METADATA_BYTES, 5 s.
 */
export async function fetchIdpMetadata(raw: string, allowHttp: boolean, param: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ApiError.malformed(param, 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw ApiError.malformed(param, 'must be https (http only with IDENTITY_PROVIDERS_ALLOW_HTTP=1)');
  }
  if (url.username || url.password) throw ApiError.malformed(param, 'must not contain a user name or password');
  const a = await filteringAgents(allowHttp);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<string>((resolve, reject) => {
    const fail = (why: string) => reject(ApiError.malformed(param, `could not be read: ${why}`));
    const req = client.get(
      url,
      { agent: url.protocol === 'https:' ? a.https : a.http, headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          res.resume();
          return fail(
            status >= 300 && status < 400 ? `HTTP ${status} redirect to ${res.headers.location ?? 'nowhere'} (not followed: give that URL)` : `HTTP ${status}`,
          );
        }
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_METADATA_BYTES) {
            req.destroy();
            return fail(`larger than ${MAX_METADATA_BYTES / 1024} KB`);
          }
          parts.push(chunk);
        });
        res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        res.on('error', (e) => fail(e.message));
      },
    );
    req.setTimeout(TIMEOUT_MS, () => {
      req.destroy();
      fail(`no answer within ${TIMEOUT_MS / 1000} s`);
    });
    req.on('error', (e) =>
      fail(/is not allowed/.test(e.message) ? `${url.hostname} is not a public address (IDENTITY_PROVIDERS_ALLOW_HTTP is off)` : e.message),
    );
  });
}
