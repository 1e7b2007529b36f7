import http from 'node:http';

export interface Answer {
  kind: 'read' | 'write' | 'login';
  sentAt: number;
  doneAt: number;
  /** 0: no HTTP answer (connection refused or reset, or no answer within the time limit) */
  status: number;
  body: any;
  retryAfter?: string;
  error?: string;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** node:http, because fetch() does not let a caller set the Host header. No keep-alive: every call its own connection. */
export function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown, timeoutMs = 20_000): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        method,
        agent: false,
        timeout: timeoutMs,
        headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let parsed: any = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON: kept as text, the checks will say so */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export interface TrafficTarget {
  base: string;
  host: string;
  /** Cookie header of a logged-in superuser */
  cookie: string;
  login: { user_name: string; password: string };
  /** recipient of the messages written */
  recipient: string;
}

/**
 * A small steady load through the real HTTP server: two readers (GET /api/person), one writer
 * (POST /api/messages, each with a title of its own) and one login loop, each sending its next
 * request 50 ms after the last answer. Records every answer and what the API acknowledged.
 */
export class Traffic {
  readonly answers: Answer[] = [];
  /** messages answered 200: their ids and titles */
  readonly messages: { id: number; title: string }[] = [];
  /** sessions answered 200: their cookies */
  readonly sessions: string[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private n = 0;

  constructor(
    private readonly target: TrafficTarget,
    private readonly label: string,
  ) {}

  start(): void {
    this.running = true;
    const t = this.target;
    const headers = { Host: t.host, Cookie: t.cookie };
    this.loops = [
      this.loop('read', () => call(t.base, 'GET', '/api/person', headers)),
      this.loop('read', () => call(t.base, 'GET', '/api/person', headers)),
      this.loop('write', async () => {
        const title = `${this.label} ${++this.n}`;
        const r = await call(t.base, 'POST', '/api/messages', headers, { user_name: t.recipient, title, text: 'written under load' });
        if (r.status === 200) this.messages.push({ id: r.body.messages[0].message_id, title });
        return r;
      }),
      this.loop('login', async () => {
        const r = await call(t.base, 'POST', '/api/login', { Host: t.host }, { ...t.login, login: 1 });
        const cookie = ([] as string[]).concat(r.headers['set-cookie'] ?? []).find((c) => c.startsWith('tg-visit='));
        if (r.status === 200 && cookie) this.sessions.push(cookie.split(';')[0]);
        return r;
      }),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(kind: Answer['kind'], send: () => Promise<Reply>): Promise<void> {
    while (this.running) {
      const sentAt = Date.now();
      try {
        const r = await send();
        this.answers.push({ kind, sentAt, doneAt: Date.now(), status: r.status, body: r.body, retryAfter: r.headers['retry-after'] });
      } catch (err) {
        this.answers.push({ kind, sentAt, doneAt: Date.now(), status: 0, body: null, error: (err as Error).message });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Answers that are neither a success nor a 503 envelope with Retry-After. */
  unexpected(): Answer[] {
    return this.answers.filter(
      (a) => a.status !== 200 && !(a.status === 503 && a.body?.valid === false && a.body?.errorcode === 503 && Number(a.retryAfter) > 0),
    );
  }

  /**
   * Seconds from `backAt` until every kind of request succeeds again: the start of the last
   * unbroken run of successes of the slowest kind (0 when none failed after `backAt`).
   */
  recoverySeconds(backAt: number): number {
    let worst = backAt;
    for (const kind of ['read', 'write', 'login'] as const) {
      const mine = this.answers.filter((a) => a.kind === kind);
      const lastFailure = mine.filter((a) => a.status !== 200).at(-1);
      if (!lastFailure) continue;
      const firstGood = mine.find((a) => a.sentAt > lastFailure.sentAt);
      worst = Math.max(worst, firstGood ? firstGood.sentAt : Infinity);
    }
    return (worst - backAt) / 1000;
  }

  /** Successes of every kind sent after `since`. */
  successesSince(since: number): Record<Answer['kind'], number> {
    const out = { read: 0, write: 0, login: 0 };
    for (const a of this.answers) if (a.sentAt >= since && a.status === 200) out[a.kind]++;
    return out;
  }
}
