import { inject, injectable } from 'tsyringe';
import twilio from 'twilio';
import { ENV } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { PermanentDeliveryError, TemporaryDeliveryError } from './delivery-errors';

type RequestOptions = Parameters<InstanceType<typeof twilio.RequestClient>['request']>[0];

/**
 * The twilio library builds https://api.twilio.com/... itself; its documented httpClient
 * option is the way to send those requests elsewhere. This client keeps path and query and
 * swaps the origin for TWILIO_BASE_URL (a test double or a relay).
 */
export class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: string) {
    super({ timeout: 15_000 });
  }

  override request<TData>(opts: RequestOptions & { data?: TData }) {
    const original = new URL(opts.uri);
    const base = new URL(this.baseUrl);
    const prefix = base.pathname.replace(/\/$/, '');
    const uri = `${base.origin}${prefix}${original.pathname}${original.search}`;
    return super.request<TData>({ ...opts, uri });
  }
}

/** SMS through the twilio library (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_BASE_URL). */
@injectable()
export class SmsSender {
  private client: ReturnType<typeof twilio> | null = null;

  constructor(@inject(ENV) private readonly env: Env) {}

  async send(sms: { from: string; to: string; body: string }): Promise<string> {
    const { TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: token, TWILIO_BASE_URL: base } = this.env;
    if (!sid || !token) throw new PermanentDeliveryError('SMS is not configured on this server (TWILIO_ACCOUNT_SID / TWILIO_AUTH_TOKEN)');
    this.client ??= twilio(sid, token, base ? { httpClient: new BaseUrlRequestClient(base) } : {});
    try {
      const msg = await this.client.messages.create({ from: sms.from, to: sms.to, body: sms.body });
      return msg.sid;
    } catch (err) {
      const e = err as Error & { status?: number; code?: number | string };
      if (typeof e.status === 'number') {
        const why = `Twilio ${e.status}${e.code ? ` (${e.code})` : ''}: ${e.message.slice(0, 300)}`;
        if (e.status >= 400 && e.status < 500 && e.status !== 429) throw new PermanentDeliveryError(why);
        throw new TemporaryDeliveryError(why);
      }
      throw new TemporaryDeliveryError(`Twilio unreachable: ${e.code ?? ''} ${e.message.slice(0, 300)}`.trim());
    }
  }
}
