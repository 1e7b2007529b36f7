import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  raw: string;
  body: any;
  /** Labels of the secrets (see expect()) whose standardwebhooks verification passed. */
  verifiedWith: string[];
  /** What the receiver answered. */
  status: number;
}

/**
 * A real HTTP receiver on loopback that checks every request with the standardwebhooks package
 * (the reference implementation, not our code) and answers by path:
 *  /ok/...        200 when a secret given with expect() verifies it, else 400
 *  /flaky/...     503 for the first two requests of each webhook-id at that path, then as /ok
 *  /fail/...      500 always
 *  /redirect/...  302 to /ok/redirected (which must never be reached)
 *  /slow/...      never answers
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const secrets = new Map<string, Map<string, string>>();
  const seen = new Map<string, number>();
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const verifiedWith: string[] = [];
      for (const [label, secret] of secrets.get(path) ?? []) {
        try {
          new Webhook(secret).verify(raw, headers);
          verifiedWith.push(label);
        } catch {
          // not signed with this one
        }
      }
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      // per path: one event goes to every subscribed endpoint under the same webhook-id
      const key = `${path} ${headers['webhook-id']}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      const record = (status: number) =>
        received.push({
          path,
          id: headers['webhook-id'],
          timestamp: headers['webhook-timestamp'],
          signature: headers['webhook-signature'],
          raw,
          body,
          verifiedWith,
          status,
        });
      const answer = (status: number, extra: Record<string, string> = {}) => {
        record(status);
        res.writeHead(status, { 'content-type': 'text/plain', ...extra }).end(status === 200 ? 'ok' : `refused (${status})`);
      };
      if (path.startsWith('/slow/')) return record(0);
      if (path.startsWith('/fail/')) return answer(500);
      if (path.startsWith('/redirect/')) return answer(302, { location: '/ok/redirected' });
      if (path.startsWith('/flaky/') && n <= 2) return answer(503);
      answer(verifiedWith.length > 0 ? 200 : 400);
    });
  });
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    /** Requests at a path (in arrival order). */
    at: (path: string) => received.filter((r) => r.path === path),
    /** TCP connections accepted so far. */
    connections: () => connections,
    /** Verify requests at `path` with this secret, reported under `label`. */
    expect(path: string, secret: string, label = 'current') {
      if (!secrets.has(path)) secrets.set(path, new Map());
      secrets.get(path)!.set(label, secret);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
