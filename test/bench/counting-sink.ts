import { SMTPServer } from 'smtp-server';
import { freePort } from '../../src/platform/dev/local-services';

/** The benchmarks' SMTP sink on loopback: it takes every mail, counts them and notes when the last one arrived. */
export interface CountingSink {
  port: number;
  /** Mails received so far. */
  readonly count: number;
  /** When the last mail was received (epoch ms; 0 before the first). */
  readonly lastMailAt: number;
  close(): void;
}

export async function startCountingSink(): Promise<CountingSink> {
  let count = 0;
  let lastMailAt = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        count++;
        lastMailAt = Date.now();
        cb();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    get count() {
      return count;
    },
    get lastMailAt() {
      return lastMailAt;
    },
    close: () => server.close(),
  };
}
