import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The warm-up's own requests: not traffic, so the request metrics leave them out (isWarmupRequest). */
const warmupRequests = new WeakSet<http.IncomingMessage>();

/** True for a request the start-up warm-up sent itself (never for one from outside: the mark is set in-process). */
export function isWarmupRequest(req: http.IncomingMessage): boolean {
  return warmupRequests.has(req);
}

export interface RequestPathWarmup {
  requests: number;
  ms: number;
}

/**
 * Sends `requests` anonymous GET requests for `paths` (in turn, `concurrency` at a time) through `listener` on
 * a loopback port of its own, closed afterwards, with `host` (a real tenant's) as Host: before the
 * API listens, so that V8 has compiled and optimised the path every request takes (node's HTTP
 * parser and writer, express, the tenant middleware and scope, the session and rate-limit steps,
 * the error envelope, pino-http) before the first real request comes. No credentials: each answer
 * is the 401 an anonymous call gets, so nothing is read or written for a person. What only an
 * authenticated request runs (its route's handler and the data loads) stays cold; measured in
 * test/bench/README.md "The first seconds after a start". Costs about `requests` x 1-2 ms of the API's CPU.
 */
export async function warmRequestPath(
  listener: http.RequestListener,
  host: string,
  paths: readonly string[],
  requests: number,
  concurrency = 4,
): Promise<RequestPathWarmup> {
  const started = Date.now();
  if (requests <= 0 || paths.length === 0) return { requests: 0, ms: 0 };
  const server = http.createServer((req, res) => {
    warmupRequests.add(req);
    listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // exclusive: in a cluster worker, a port of this process's own (not one shared through the primary)
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let sent = 0;
  const one = (path: string) =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path, agent, headers: { Host: host } }, (res) => {
        res.resume();
        res.on('end', resolve);
        res.on('error', () => resolve());
      });
      req.on('error', () => resolve());
    });
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < requests) await one(paths[sent++ % paths.length]);
      }),
    );
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return { requests: sent, ms: Date.now() - started };
}
