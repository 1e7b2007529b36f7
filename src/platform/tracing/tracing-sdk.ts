import type { IncomingMessage } from 'node:http';
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { markTracingEnabled } from './tracing';
import { routeTemplate } from '../metrics/route-template';

/** Probes and scrapes: a trace every few seconds each, about nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The SDK, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (start-tracing.ts). Spans go in
 * batches to the OTLP/HTTP endpoint (JSON; OTEL_EXPORTER_OTLP_* and OTEL_BSP_* as the
 * specification says). Parent-based sampling (OTEL_TRACES_SAMPLER, default always on for new
 * traces), W3C trace context.
 *
 * Instrumented: incoming HTTP requests (one server span each; its name and `http.route` are the
 * route template, set by the request-tracing middleware), outgoing HTTP within a span (webhooks,
 * Twilio, identity providers), PostgreSQL queries and Redis commands within a span. PostgreSQL and
 * Redis calls outside any request or job (the relay's and BullMQ's polling, LISTEN, the cache's
 * invalidations) make no spans: they would be a root trace per poll.
 */
export function startTracingSdk(service: string): void {
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': service }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
        requireParentforOutgoingSpans: true,
        // The path can carry a secret (a calendar feed's token, a verification code) and the query a
        // sign-on hash: the span keeps the route template and no query, as the request log does.
        applyCustomAttributesOnSpan: (span, request) => {
          if (typeof (request as { getHeader?: unknown }).getHeader === 'function') return; // an outgoing request (ClientRequest) keeps its URL
          const req = request as IncomingMessage & { originalUrl?: string };
          span.setAttribute('url.path', routeTemplate(req as Parameters<typeof routeTemplate>[0]));
          const url = req.originalUrl ?? req.url ?? '';
          if (url.includes('?')) span.setAttribute('url.query', '[redacted]');
        },
      }),
      // SQL text only (bind parameters are never recorded: enhancedDatabaseReporting stays off).
      new PgInstrumentation({ requireParentSpan: true }),
      // The command's name only: keys name sessions and tokens.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  markTracingEnabled(() => provider.forceFlush());
  // A process ending on its own (not through the shutdown steps) still sends what it holds.
  process.once('beforeExit', () => void provider.shutdown().catch(() => undefined));
}
