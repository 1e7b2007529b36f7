import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSmtpSocket } from '../../../src/messaging/messages/smtp-socket';

let server: net.Server;
let port: number;
const received: string[] = [];
beforeAll(async () => {
  server = net.createServer((s) => s.on('data', (d) => received.push(d.toString())));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const connect = (options: Parameters<typeof connectSmtpSocket>[0]) =>
  new Promise<net.Socket>((resolve, reject) => connectSmtpSocket(options, (err, o) => (err ? reject(err) : resolve(o!.connection))));

describe('the SMTP pool socket (coalesced writes)', () => {
  it('holds what is written in one turn and sends it together on the next, in order', async () => {
    const socket = await connect({ host: '127.0.0.1', port });
    socket.write('MAIL FROM:<a@b.c>\r\n');
    socket.write('RCPT TO:<d@e.f>\r\n');
    socket.write('DATA\r\n');
    // corked: nothing has been handed to the system yet
    expect(socket.writableCorked).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(socket.writableCorked).toBe(0);
    for (let i = 0; i < 50 && received.join('').length < 40; i++) await new Promise((r) => setTimeout(r, 10));
    expect(received.join('')).toBe('MAIL FROM:<a@b.c>\r\nRCPT TO:<d@e.f>\r\nDATA\r\n');
    socket.destroy();
  });

  it('reports a server that cannot be reached, so the delivery is retried', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const unused = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(connect({ host: '127.0.0.1', port: unused })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
