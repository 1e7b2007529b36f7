import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';

// samlify wants an XML schema validator before it parses anything. This IdP only ever parses our own
// AuthnRequests, so a permissive one is enough HERE; the product's side (node-saml) validates for real.
samlify.setSchemaValidator({ validate: async () => 'skipped: the test IdP parses only our own AuthnRequests' });

const KEYS = path.join(__dirname, 'saml-keys');
const read = (f: string) => fs.readFileSync(path.join(KEYS, f), 'utf8');
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export interface SamlUser {
  nameId: string;
  attributes?: Record<string, string>;
}

/** How the next responses misbehave (a hostile or misconfigured IdP). */
export interface Tamper {
  issuer?: string;
  audience?: string;
  /** NotBefore / NotOnOrAfter an hour ago. */
  expired?: boolean;
  inResponseTo?: string;
  recipient?: string;
  /** Which part is signed (default: the assertion, as Entra ID does). */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  /** Signed with a key that is not the one in the IdP's metadata. */
  otherKey?: boolean;
}

export interface PostedForm {
  action: string;
  SAMLResponse: string;
  RelayState?: string;
}

export interface TestIdp {
  base: string;
  entityId: string;
  metadataUrl: string;
  metadataXml: string;
  /** The SP metadata (GET /api/sso/<id>/metadata) this IdP trusts, as when an admin uploads it. */
  trust(spMetadataXml: string): void;
  signInAs(user: SamlUser): void;
  tamper(t: Tamper | null): void;
  /** The browser at the IdP: follows the AuthnRequest redirect and returns the auto-submitting form's fields. */
  respond(ssoRedirect: string): Promise<PostedForm>;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const newId = () => `_${randomBytes(16).toString('hex')}`;

/** samlify as a real SAML IdP on loopback: metadata at /metadata, SSO (HTTP-Redirect in, HTTP-POST out) at /sso. */
export async function startTestIdp(): Promise<TestIdp> {
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void> = (_q, r) => void r.end();
  // the handler answers every error itself (500), so its promise is voided
  const server = http.createServer((q, r) => void handler(q, r));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${base}/idp`;
  const settings = (key: string, cert: string) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: read(key),
      signingCert: read(cert),
      singleSignOnService: [{ Binding: REDIRECT, Location: `${base}/sso` }],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
    });
  const idp = settings('idp-key.pem', 'idp-cert.pem');
  const impostor = settings('other-key.pem', 'other-cert.pem');
  const sps = new Map<string, string>();
  let user: SamlUser | null = null;
  let tamper: Tamper = {};

  const spFor = (xml: string, sign: NonNullable<Tamper['sign']>) =>
    samlify.ServiceProvider({
      metadata: sign === 'response' ? xml.replace(/WantAssertionsSigned="true"/, 'WantAssertionsSigned="false"') : xml,
      wantMessageSigned: sign === 'both',
    });

  async function samlResponse(query: Record<string, string>): Promise<PostedForm> {
    const requestXml = samlify.Utility.inflateString(decodeURIComponent(query.SAMLRequest));
    const spEntity = /<saml:Issuer[^>]*>([^<]+)<\/saml:Issuer>/.exec(requestXml)?.[1];
    const spXml = spEntity && sps.get(spEntity);
    if (!spXml || !user) throw new Error(`unknown service provider ${spEntity} or nobody to sign in`);
    const sign = tamper.sign ?? 'assertion';
    const sp = spFor(spXml, sign);
    const parsed = await idp.parseLoginRequest(sp, 'redirect', { query });
    const requestId = String(parsed.extract.request?.id);
    const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
    const now = Date.now() - (tamper.expired ? 3600_000 : 0);
    const attrs = Object.entries(user.attributes ?? {})
      .map(([n, v]) => `<saml:Attribute Name="${esc(n)}"><saml:AttributeValue xsi:type="xs:string">${esc(v)}</saml:AttributeValue></saml:Attribute>`)
      .join('');
    const values: Record<string, string> = {
      ID: newId(),
      AssertionID: newId(),
      Destination: acs,
      Audience: tamper.audience ?? sp.entityMeta.getEntityID(),
      SubjectRecipient: tamper.recipient ?? acs,
      Issuer: tamper.issuer ?? entityId,
      IssueInstant: new Date(now).toISOString(),
      StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: new Date(now - 1000).toISOString(),
      ConditionsNotOnOrAfter: new Date(now + 300_000).toISOString(),
      SubjectConfirmationDataNotOnOrAfter: new Date(now + 300_000).toISOString(),
      NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      NameID: esc(user.nameId),
      InResponseTo: tamper.inResponseTo ?? requestId,
      AuthnStatement: `<saml:AuthnStatement AuthnInstant="${new Date(now).toISOString()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
      AttributeStatement: attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : '',
    };
    const signer = tamper.otherKey ? impostor : idp;
    const made = await signer.createLoginResponse(sp, parsed as any, 'post', {}, (template: string) => ({
      id: values.ID,
      // our own replacement: samlify's escapes the values, and the statements are XML
      context: template.replace(/\{(\w+)\}/g, (tag, name: string) => values[name] ?? tag),
    }));
    let context = String(made.context);
    if (sign === 'none') {
      const xml = Buffer.from(context, 'base64')
        .toString('utf8')
        .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, '');
      context = Buffer.from(xml, 'utf8').toString('base64');
    }
    return { action: acs, SAMLResponse: context, RelayState: query.RelayState };
  }

  handler = async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    try {
      if (url.pathname === '/metadata') {
        res.setHeader('content-type', 'application/samlmetadata+xml');
        return void res.end(idp.getMetadata());
      }
      if (url.pathname === '/sso') {
        const form = await samlResponse(Object.fromEntries(url.searchParams));
        const fields = Object.entries(form).filter(([k, v]) => k !== 'action' && v !== undefined);
        res.setHeader('content-type', 'text/html; charset=utf-8');
        return void res.end(
          `<!doctype html><form method="post" action="${esc(form.action)}">${fields.map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(String(v))}">`).join('')}</form><script>document.forms[0].submit()</script>`,
        );
      }
      res.statusCode = 404;
      res.end();
    } catch (e) {
      res.statusCode = 500;
      res.end(String((e as Error).stack ?? e));
    }
  };

  return {
    base,
    entityId,
    metadataUrl: `${base}/metadata`,
    metadataXml: idp.getMetadata(),
    trust(xml) {
      const id = /entityID="([^"]+)"/.exec(xml)?.[1];
      if (!id) throw new Error('no entityID in the SP metadata');
      sps.set(id, xml);
    },
    signInAs: (u) => (user = u),
    tamper: (t) => (tamper = t ?? {}),
    async respond(ssoRedirect) {
      const res = await fetch(ssoRedirect, { redirect: 'manual' });
      const html = await res.text();
      if (res.status !== 200) throw new Error(`the IdP answered ${res.status}: ${html}`);
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      const field = (n: string) =>
        new RegExp(`name="${n}" value="([^"]*)"`)
          .exec(html)?.[1]
          ?.replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&amp;/g, '&');
      if (!action) throw new Error(`no form in the IdP's page: ${html.slice(0, 300)}`);
      return { action: action.replace(/&amp;/g, '&'), SAMLResponse: field('SAMLResponse')!, RelayState: field('RelayState') };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
