import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWTPayload } from 'jose';

export interface TestAccount {
  sub: string;
  email?: string;
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
}

export interface TestOp {
  issuer: string;
  /** Starts the provider with these clients (once). */
  register(clients: TestClient[]): void;
  /** The account the next interaction signs in. */
  signInAs(account: TestAccount): void;
  /** Rewrites the next ID tokens' claims (signed again with the provider's own key): a misbehaving or hostile provider. */
  tamper(fn: ((claims: JWTPayload) => JWTPayload) | null): void;
  /** Follows the browser's way from the authorization URL to the redirect back (the callback URL). */
  authorize(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/** A real OpenID provider (oidc-provider) on loopback: code flow, PKCE required, login without a form. */
export async function startTestOp(): Promise<TestOp> {
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void> = (_req, res) => void res.end();
  // the handler answers every error itself (500), so its promise is voided
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, TestAccount>();
  let current: TestAccount | null = null;
  let tamper: ((claims: JWTPayload) => JWTPayload) | null = null;

  const start = (clients: TestClient[]) => {
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' })),
      jwks: { keys: [jwk as any] },
      cookies: { keys: ['test-cookie-key'] },
      pkce: { methods: ['S256'], required: () => true },
      conformIdTokenClaims: false,
      ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      claims: { openid: ['sub'], email: ['email'], profile: ['preferred_username', 'given_name', 'family_name'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx: unknown, id: string) {
        const account = accounts.get(id);
        return account ? { accountId: id, claims: async () => ({ ...account }) } : undefined;
      },
      async loadExistingGrant(ctx: any) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    } as any);
    provider.use(async (ctx: any, next: () => Promise<void>) => {
      await next();
      const body = ctx.body as Record<string, unknown> | undefined;
      if (ctx.path === '/token' && tamper && body && typeof body.id_token === 'string') {
        const claims = tamper(decodeJwt(body.id_token));
        ctx.body = { ...body, id_token: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(privateKey) };
      }
    });
    const callback = provider.callback();
    handler = async (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        try {
          if (!current) throw new Error('no account to sign in');
          accounts.set(current.sub, current);
          await provider.interactionFinished(req, res, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
        } catch (e) {
          res.statusCode = 500;
          res.end(String(e));
        }
        return;
      }
      callback(req, res);
    };
  };

  return {
    issuer,
    register: start,
    signInAs: (a) => (current = a),
    tamper: (fn) => (tamper = fn),
    async authorize(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop++) {
        if (url.origin !== issuer) return url;
        const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(';');
          const i = pair.indexOf('=');
          jar.set(pair.slice(0, i), pair.slice(i + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
        url = new URL(location, url);
      }
      throw new Error('too many redirects');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
