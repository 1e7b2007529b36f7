import type http from 'node:http';
import { ApiError } from '../errors/api-error';
import { errorEnvelope } from '../http/envelope';

/** What a drain left behind when its grace ran out. */
export interface DrainReport {
  /** requests still running when the grace ended (their connections were closed) */
  cutOff: number;
  waitedMs: number;
}

/**
 * Graceful stop of the HTTP server. While draining, a request that arrives on a connection that
 * was already open is answered with the 503 envelope (Retry-After, Connection: close) without
 * reaching the app; the listening socket is closed, so new connections are refused. Requests
 * already running finish, their responses close their connections; once none is left (or the
 * grace has passed) every remaining connection is closed.
 */
export class HttpDrain {
  private draining = false;
  private readonly inFlight = new Set<http.ServerResponse>();
  private idle: (() => void) | null = null;

  constructor(private readonly app: http.RequestListener) {}

  /** The server's request listener. */
  readonly listener: http.RequestListener = (req, res) => {
    if (this.draining) return refuse(res);
    this.inFlight.add(res);
    res.once('close', () => {
      this.inFlight.delete(res);
      if (this.inFlight.size === 0) this.idle?.();
    });
    this.app(req, res);
  };

  get isDraining(): boolean {
    return this.draining;
  }

  async drain(server: http.Server, graceMs: number): Promise<DrainReport> {
    const started = Date.now();
    this.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // responses still to be written end their connection instead of keeping it alive
    for (const res of this.inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const finished = this.inFlight.size === 0 ? Promise.resolve(true) : new Promise<boolean>((resolve) => (this.idle = () => resolve(true)));
    const inTime = await Promise.race([finished, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)))]);
    clearTimeout(timer);
    const cutOff = inTime ? 0 : this.inFlight.size;
    // whatever is left is idle keep-alive connections, or requests past the grace
    server.closeAllConnections();
    await closed;
    return { cutOff, waitedMs: Date.now() - started };
  }
}

function refuse(res: http.ServerResponse): void {
  const body = JSON.stringify(errorEnvelope(new ApiError(503, 'the server is shutting down; send the request again (another instance answers it)')));
  res.shouldKeepAlive = false;
  res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Retry-After': '1', Connection: 'close' });
  res.end(body);
}
