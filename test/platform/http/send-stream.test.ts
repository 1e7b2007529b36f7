import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientGone, sendStream } from '../../../src/platform/http/send-stream';

// A streamed answer (reports, archives, files) whose client goes away must stop its writer at
// once: a writer waiting for 'drain' would otherwise hold its cursor or batch for ever.
let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** A writer that writes 64 KiB chunks, as a report does, honouring backpressure, until it fails. */
function endlessWriter(progress: { chunks: number }) {
  return async (out: Writable): Promise<void> => {
    const chunk = Buffer.alloc(64 * 1024, 120);
    for (;;) {
      progress.chunks++;
      if (!out.write(chunk)) await once(out, 'drain');
    }
  };
}

async function serve(handler: (res: http.ServerResponse) => Promise<void>): Promise<number> {
  server = http.createServer((_req, res) => void handler(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('sendStream', () => {
  it('stops a writer that waits for drain when the client goes away mid-answer', async () => {
    const progress = { chunks: 0 };
    let writerEnd!: Promise<unknown>;
    let served!: Promise<void>;
    const port = await serve(async (res) => {
      const write = endlessWriter(progress);
      served = sendStream(res, {
        contentType: 'text/csv',
        stream: (out) =>
          (writerEnd = write(out).then(
            () => 'ended',
            (err: unknown) => err,
          )),
      });
      await served.catch(() => undefined);
    });
    const req = http.get({ port, host: '127.0.0.1', path: '/' });
    const [answer] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(answer.statusCode).toBe(200);
    await once(answer, 'data');
    req.destroy();
    // Without the stop the writer waits for a 'drain' that never comes and this await never ends.
    const outcome = await writerEnd;
    expect(outcome).toBeInstanceOf(Error);
    await expect(served).resolves.toBeUndefined();
    const stoppedAt = progress.chunks;
    await new Promise((r) => setTimeout(r, 50));
    expect(progress.chunks).toBe(stoppedAt);
  });

  it('still ends a complete answer normally', async () => {
    const port = await serve(async (res) => {
      await sendStream(res, { contentType: 'text/plain', stream: async (out) => void out.end('a,b\n1,2\n') });
    });
    const text = await new Promise<string>((resolve, reject) => {
      http.get({ port, host: '127.0.0.1', path: '/' }, (res) => {
        let s = '';
        res
          .setEncoding('utf8')
          .on('data', (d: string) => (s += d))
          .on('end', () => resolve(s))
          .on('error', reject);
      });
    });
    expect(text).toBe('a,b\n1,2\n');
  });

  it('names the reason', () => {
    expect(new ClientGone().message).toMatch(/client closed/);
  });
});
