import net from 'node:net';

/**
 * The SMTP pool's sockets, connected here (nodemailer's `getSocket`) so that everything written in
 * one turn of the event loop leaves in one write: nodemailer writes a mail as the pipelined
 * envelope and then the body in four writes, each a system call (0.05-0.1 ms apiece on a busy
 * machine). Corked until setImmediate, a mail takes 2 writes instead of 5, and a worker's CPU per
 * mail fell by about a quarter (README, "Third lever"). Under TLS (smtps, STARTTLS) the TLS socket
 * writes to the connection's handle directly and this changes nothing.
 */
export function coalescingWrites(socket: net.Socket): net.Socket {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  const flush = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(flush);
    }
    return write(...args);
  }) as net.Socket['write'];
  return socket;
}

interface SocketOptions {
  host?: string;
  port?: number | string;
  secure?: boolean;
  connectionTimeout?: number;
}

/** nodemailer's `getSocket`: a plain TCP connection to the configured server, with coalesced writes. */
export function connectSmtpSocket(options: SocketOptions, callback: (err: Error | null, socketOptions?: { connection: net.Socket }) => void): void {
  // nodemailer's own defaults (smtp-connection): 465 for implicit TLS, else 587; two minutes to connect
  const port = Number(options.port) || (options.secure ? 465 : 587);
  const socket = net.connect(port, options.host ?? 'localhost');
  const fail = (err: Error) => {
    socket.destroy();
    callback(err);
  };
  socket.setTimeout(options.connectionTimeout ?? 120_000, () => fail(Object.assign(new Error('Connection timeout'), { code: 'ETIMEDOUT' })));
  socket.once('error', fail);
  socket.once('connect', () => {
    socket.setTimeout(0);
    socket.off('error', fail);
    // nodemailer attaches its handlers when it takes the socket; an error before that must not crash the worker
    socket.on('error', () => {});
    callback(null, { connection: coalescingWrites(socket) });
  });
}
