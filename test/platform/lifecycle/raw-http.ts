import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * One TCP connection to the server, written to by hand, so a test can hold a request half-sent
 * (its body, or its headers) across a SIGTERM and see exactly what comes back on that connection.
 */
export async function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  let buffer = '';
  let waiter: (() => void) | null = null;
  let ended = false;
  socket.on('data', (d) => {
    buffer += d.toString('utf8');
    waiter?.();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      waiter?.();
      resolve();
    }),
  );
  /** The next complete response (Content-Length framed), or null when the server closed the connection first. */
  const response = async (): Promise<RawResponse | null> => {
    for (;;) {
      const head = buffer.indexOf('\r\n\r\n');
      if (head >= 0) {
        const [statusLine, ...lines] = buffer.slice(0, head).split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length >= head + 4 + length) {
          const text = buffer.slice(head + 4, head + 4 + length);
          buffer = buffer.slice(head + 4 + length);
          let body: any = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (ended) return null;
      await new Promise<void>((resolve) => (waiter = resolve));
      waiter = null;
    }
  };
  return { socket, write: (s: string) => socket.write(s), response, closed };
}
