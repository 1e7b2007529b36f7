import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import type { DependencyContainer } from 'tsyringe';
import { afterAll, beforeAll } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { freePort } from '../../../src/platform/dev/local-services';
import { QUEUE_PREFIX } from '../../../src/platform/queue/job-definition';
import { RETRY_POLICY } from '../../../src/platform/queue/job-worker';
import { RELAY_TIMING, DEFAULT_RELAY_TIMING } from '../../../src/messaging/outbox/relay-timing';
import { startWorkers } from '../../../src/platform/queue/worker-runtime';
import { REMINDER_SCAN_OPTIONS, DEFAULT_REMINDER_SCAN_OPTIONS } from '../../../src/flows/reminders/reminder-scan';

export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  headers: Record<string, string>;
  body: string;
  /** The message as received (RFC 822 source), for MIME parsing. */
  raw: string;
}

function parseMail(raw: string): { headers: Record<string, string>; body: string } {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  // quoted-printable soft breaks and the few escapes our plain ASCII texts can produce
  const body = rest
    .join('\n\n')
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=')
    .replace(/\r\n/g, '\n')
    .trim();
  return { headers, body };
}

/** A real SMTP server on loopback that keeps what it receives; it can go down and come back on the same port. */
export async function startSmtpSink() {
  const port = await freePort();
  const mails: ReceivedMail[] = [];
  /** `delayMs`: how long the answer to DATA is held (a slow server); `receiving`: mails being received now. */
  const pace = { delayMs: 0, receiving: 0 };
  const gone = new Set<string>();
  /** Recipients the server refuses at RCPT TO, with the SMTP code to answer (4xx: try later, 5xx: never). */
  const refuse = new Map<string, number>();
  let server: SMTPServer | null = null;
  const listen = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onClose(session) {
        gone.add(session.id);
      },
      onRcptTo(address, _session, callback) {
        const code = refuse.get(address.address);
        if (!code) return callback();
        callback(Object.assign(new Error(`recipient ${address.address} refused`), { responseCode: code }));
      },
      onData(stream, session, callback) {
        let raw = '';
        pace.receiving++;
        stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
        stream.on('end', () => {
          const accept = () => {
            pace.receiving--;
            // a sender gone before the answer did not get its mail accepted (a real server drops it)
            if (gone.has(session.id)) return;
            mails.push({
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              ...parseMail(raw),
              raw,
            });
            callback();
          };
          if (pace.delayMs > 0) setTimeout(accept, pace.delayMs);
          else accept();
        });
      },
    });
    // a sender killed mid-session resets its connection; that is the peer's business, not a test failure
    server.on('error', () => {});
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  await listen();
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    pace,
    refuse,
    async stop() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    start: listen,
  };
}

export interface ReceivedSms {
  path: string;
  authorization: string;
  form: Record<string, string>;
}

/** A loopback endpoint answering like Twilio's Messages resource (201 with a sid). */
export async function startTwilioSink(status = 201) {
  const received: ReceivedSms[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push({ path: req.url ?? '', authorization: String(req.headers.authorization ?? ''), form });
      const m = /Accounts\/([^/]+)\/Messages\.json/.exec(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' });
      if (status >= 400) {
        res.end(JSON.stringify({ code: 21211, message: `The 'To' number ${form.To} is not a valid phone number.`, status }));
        return;
      }
      res.end(
        JSON.stringify({
          sid: `SM${randomBytes(16).toString('hex')}`,
          account_sid: m?.[1],
          from: form.From,
          to: form.To,
          body: form.Body,
          status: 'queued',
          direction: 'outbound-api',
          num_segments: '1',
          date_created: new Date().toUTCString(),
          uri: `${req.url?.replace('.json', '')}/x.json`,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const TWILIO_ENV = { TWILIO_ACCOUNT_SID: `AC${'0123456789abcdef'.repeat(2)}`, TWILIO_AUTH_TOKEN: 'test-auth-token' };

/**
 * Runs the relay and the job workers in this process, on queues of their own, for one tenant.
 * The scheduled reminder scans touch only `reminderTenants` (none unless a test asks).
 */
export async function startTestWorkers(
  c: DependencyContainer,
  tenantIds: number[],
  retry = { attempts: 8, baseDelayMs: 200, maxDelayMs: 1000 },
  relay: Partial<typeof DEFAULT_RELAY_TIMING> = {},
  reminderTenants: number[] = [],
) {
  c.register(QUEUE_PREFIX, { useValue: `test-${randomBytes(4).toString('hex')}` });
  c.register(RETRY_POLICY, { useValue: retry });
  c.register(RELAY_TIMING, { useValue: { ...DEFAULT_RELAY_TIMING, pollMs: 100, ...relay, onlyTenants: tenantIds } });
  c.register(REMINDER_SCAN_OPTIONS, { useValue: { ...DEFAULT_REMINDER_SCAN_OPTIONS, onlyTenants: reminderTenants } });
  return startWorkers(c);
}

export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface MailTestbed {
  t: TestApp;
  acme: DemoTenant;
  smtp: Awaited<ReturnType<typeof startSmtpSink>>;
}

/** The app with a fresh acme tenant, an SMTP sink and workers for it, around a test file's tests. */
export function useMailTestbed(relay: Partial<typeof DEFAULT_RELAY_TIMING> = {}, env: Record<string, string> = {}): MailTestbed {
  const bed = {} as MailTestbed;
  let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
  beforeAll(async () => {
    bed.smtp = await startSmtpSink();
    bed.t = await createTestApp({ SMTP_URL: bed.smtp.url, ...env });
    bed.acme = await importDemoTenant(bed.t, 'acme');
    workers = await startTestWorkers(bed.t.container, [bed.acme.tenantId], undefined, relay);
  });
  afterAll(async () => {
    await workers?.stop();
    await bed.t?.close();
    await bed.smtp?.stop();
  });
  return bed;
}
