export { flushTracing } from './tracing';

/**
 * Tracing for one process, started by its entry file BEFORE anything else is imported: the
 * instrumentations patch `http`, `pg` and `ioredis` when they are first required, so a module that
 * loaded one of them earlier would escape them. Under `node --import tsx` with "type": "commonjs"
 * the entry's imports become require() calls in source order, so being the entry's first import is
 * enough. Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is loaded: not the SDK, not an
 * instrumentation, and the product's spans (tracing.ts) are skipped at their first line.
 *
 * `service`: the process's service.name (`api`, `workers`).
 */
export function startTracing(service: string): void {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return;
  if (process.env.OTEL_SDK_DISABLED === 'true' || process.env.OTEL_TRACES_EXPORTER === 'none') return;
  // Required, not imported: the SDK must not load at all while tracing is off (see above).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof import('./tracing-sdk');
  sdk.startTracingSdk(service);
}
