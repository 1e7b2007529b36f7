import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  port: number;
  close(): Promise<void>;
}

/** Serves a request handler on a free loopback port, for tests that need a real URL (browsers). */
export async function serveOnLoopback(handler: http.RequestListener): Promise<LoopbackServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
