import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { inject, injectable, type InjectionToken } from 'tsyringe';
import ipaddr from 'ipaddr.js';
import { ENV } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { ApiError } from '../../platform/errors/api-error';
import { WEBHOOK_TIMING, type WebhookTiming } from './webhook-timing';

/** dns.lookup's shape; tests give one that answers differently over time (DNS rebinding). */
export type DnsLookup = typeof dns.lookup;
export const WEBHOOK_DNS_LOOKUP: InjectionToken<DnsLookup> = Symbol('WebhookDnsLookup');

export interface AttemptResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** A routable public address: not loopback, private, link-local, unique-local, CGNAT, reserved, multicast. */
export function isPublicAddress(address: string): boolean {
  let a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  return a.range() === 'unicast';
}

const USER_AGENT = 'competence-platform-webhooks/1';
/** Enough of a refusal's body to say why, not to store a receiver's page. */
const BODY_SNIPPET = 300;
const CREATE_LOOKUP_MS = 3000;

/**
 * Where webhooks may go, and the POST itself. Unless WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 a target
 * is https and public: checked when an endpoint is saved (for a clear 420), and again by the
 * http agent's own DNS lookup at every connect (request-filtering-agent), so a name that later
 * resolves to an internal address (DNS rebinding) is refused before a byte is sent.
 */
@injectable()
export class WebhookTargets {
  private agents?: Promise<{ http: http.Agent; https: https.Agent }>;

  constructor(
    @inject(ENV) private readonly env: Env,
    @inject(WEBHOOK_DNS_LOOKUP) private readonly lookup: DnsLookup,
    @inject(WEBHOOK_TIMING) private readonly timing: WebhookTiming,
  ) {}

  get allowPrivate(): boolean {
    return this.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
  }

  /** The URL as stored, or a 420 naming why it can never be a target. */
  async check(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw ApiError.malformed('url', 'must be an absolute URL like https://hooks.example.com/competence');
    }
    const allowed = this.allowPrivate ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol)) {
      throw ApiError.malformed('url', this.allowPrivate ? 'must be http or https' : 'must be https (http only with WEBHOOKS_ALLOW_PRIVATE_TARGETS=1)');
    }
    if (url.username || url.password) throw ApiError.malformed('url', 'must not contain a user name or password; receivers check the signature');
    if (this.allowPrivate) return url.toString();
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await this.resolve(host);
    // The address itself is not said: the answer must not map a tenant's view into internal DNS (issue 40).
    if (addresses.some((a) => !isPublicAddress(a))) {
      const what = isIP(host) ? `${host} is a non-public address` : `${host} resolves to a non-public address`;
      throw ApiError.malformed('url', `${what}; private and loopback targets need WEBHOOKS_ALLOW_PRIVATE_TARGETS=1`);
    }
    return url.toString();
  }

  /** Addresses of a name now; none when it does not resolve (deliveries will say so). */
  private resolve(host: string): Promise<string[]> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve([]), CREATE_LOOKUP_MS);
      this.lookup(host, { all: true }, (err, found) => {
        clearTimeout(timer);
        resolve(err ? [] : found.map((a) => a.address));
      });
    });
  }

  private loadAgents(): Promise<{ http: http.Agent; https: https.Agent }> {
    // request-filtering-agent is an ES module; this CommonJS build loads it with import()
    this.agents ??= import('request-filtering-agent').then((m) => {
      const options = { keepAlive: false, allowPrivateIPAddress: this.allowPrivate };
      return { http: new m.RequestFilteringHttpAgent(options), https: new m.RequestFilteringHttpsAgent(options) };
    });
    return this.agents;
  }

  /** One POST: never follows a redirect, gives up after timing.timeoutMs. */
  async post(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = Date.now();
    const done = (status: number | null, error: string | null): AttemptResult => ({ status, error, durationMs: Date.now() - started });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return done(null, 'the endpoint URL is not valid');
    }
    if (url.protocol !== 'https:' && !(this.allowPrivate && url.protocol === 'http:')) {
      return done(null, 'refused: the endpoint URL must be https (WEBHOOKS_ALLOW_PRIVATE_TARGETS is off)');
    }
    const agents = await this.loadAgents();
    const client = url.protocol === 'https:' ? https : http;
    const payload = Buffer.from(body, 'utf8');
    return new Promise<AttemptResult>((resolve) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: url.protocol === 'https:' ? agents.https : agents.http,
          lookup: this.lookup,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': USER_AGENT },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < BODY_SNIPPET) text += chunk;
          });
          res.on('error', (err) => finish(status, err.message));
          res.on('end', () => {
            if (status >= 200 && status < 300) return finish(status, null);
            if (status >= 300 && status < 400) return finish(status, `redirect not followed (HTTP ${status} to ${res.headers.location ?? 'nowhere'})`);
            const snippet = text.trim().slice(0, BODY_SNIPPET).replace(/\s+/g, ' ');
            finish(status, `HTTP ${status}${snippet ? `: ${snippet}` : ''}`);
          });
        },
      );
      let settled = false;
      const finish = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(status, error));
      };
      const timer = setTimeout(() => {
        finish(null, `timed out after ${this.timing.timeoutMs / 1000} s`);
        req.destroy();
      }, this.timing.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => finish(null, describeError(err, url.hostname.replace(/^\[|\]$/g, ''))));
      req.end(payload);
    });
  }
}

function describeError(err: NodeJS.ErrnoException, host: string): string {
  // request-filtering-agent's refusal, at connect time, of an address that is not public; the
  // address itself is not said (the delivery log is the tenant's: no map of internal DNS)
  if (/is not allowed/.test(err.message)) {
    const what = isIP(host) ? `${host} is a non-public address` : `${host} resolves to a non-public address`;
    return `refused: ${what} (WEBHOOKS_ALLOW_PRIVATE_TARGETS is off)`;
  }
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
