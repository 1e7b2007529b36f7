import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { RouteResult } from './define-route';

/** Why a streamed answer's writer was stopped: the client closed the connection before the end. */
export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before the answer ended');
  }
}

/**
 * Writes a streamed answer. The writer writes into a PassThrough piped to the socket; when the client
 * goes away mid-answer the PassThrough is destroyed with ClientGone, so a writer waiting for 'drain'
 * (or piping into it) fails at once and lets go of what it holds (a database cursor, a batch of rows)
 * instead of waiting for a reader that will never come.
 */
export async function sendStream(res: ServerResponse, result: Extract<RouteResult, { stream: unknown }>): Promise<void> {
  const headers = { 'Content-Type': result.contentType, ...result.headers };
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const body = new PassThrough();
  // Errors reach the writer through its writes; an 'error' event with no one listening would crash the process.
  body.on('error', () => undefined);
  let gone = false;
  const clientGone = (): void => {
    if (res.writableFinished) return;
    gone = true;
    body.destroy(new ClientGone());
  };
  res.once('close', clientGone);
  const drained = once(body, 'end');
  drained.catch(() => undefined); // a failure is met in the catch below
  body.pipe(res, { end: false });
  try {
    await result.stream(body);
    if (gone) throw new ClientGone();
    if (!body.writableEnded) body.end();
    await drained;
  } catch (err) {
    body.unpipe(res);
    body.destroy();
    if (gone) return void res.destroy();
    if (res.headersSent) return void res.destroy(err as Error);
    for (const name of Object.keys(headers)) res.removeHeader(name);
    throw err;
  } finally {
    res.off('close', clientGone);
  }
  res.end();
}
