import pino, { type Logger } from 'pino';
import type { Env } from '../config/env';

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'password',
  '*.password',
  '*.*.password',
  'old_password',
  '*.old_password',
  'password_match',
  '*.password_match',
  'password_hash',
  '*.password_hash',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'hash',
  '*.hash',
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-platform-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
];

export function createLogger(env: Pick<Env, 'LOG_LEVEL'>, name = 'api'): Logger {
  return pino({
    name,
    level: env.LOG_LEVEL,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
  });
}
