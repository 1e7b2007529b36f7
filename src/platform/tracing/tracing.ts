import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';

/*
 * The product's own spans and the trace context it carries through the outbox, on the OpenTelemetry
 * API alone (a few kB, no-op until an SDK registers). The SDK is loaded only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (start-tracing.ts); until then every helper here returns at its
 * first line, so tracing off costs a boolean test.
 */

export { SpanKind };

let enabled = false;
let flush: (() => Promise<void>) | null = null;

/** Said by the SDK loader once spans are exported (tracing-sdk.ts), with how to send what is buffered. */
export function markTracingEnabled(flushSpans: () => Promise<void>): void {
  enabled = true;
  flush = flushSpans;
}

/** Exports the spans still buffered (at shutdown); nothing when tracing is off. */
export async function flushTracing(): Promise<void> {
  if (flush) await flush().catch(() => undefined);
}

export function tracingEnabled(): boolean {
  return enabled;
}

/** The scope of the product's own spans. */
export const TRACER_NAME = 'competence-platform';

/** The W3C `traceparent` of the active span (`00-<trace id>-<span id>-<flags>`), null when tracing is off or no span is active. */
export function currentTraceparent(): string | null {
  if (!enabled) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The remote span a stored traceparent names, as a parent context; null for none or a malformed value. */
export function contextOf(traceparent: unknown): Context | null {
  if (!enabled || typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return null;
  const ctx = propagation.extract(ROOT_CONTEXT, { traceparent });
  return trace.getSpanContext(ctx) ? ctx : null;
}

/** The trace id in a traceparent (to tell whether two belong to one trace). */
export function traceIdOf(traceparent: string | null | undefined): string | null {
  return traceparent && TRACEPARENT.test(traceparent) ? traceparent.slice(3, 35) : null;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent: a stored traceparent (restored as a remote parent); else the active span. */
  parent?: string | null;
  /** Other traces this span works for (a batch job's other deliveries), as links. */
  links?: readonly (string | null | undefined)[];
}

/**
 * Runs `fn` inside a span named `name` (the active one while it runs), ended when `fn` settles; an
 * error thrown marks the span and is rethrown. Tracing off: `fn` runs as is, with no span.
 */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span | null) => Promise<T>): Promise<T> {
  if (!enabled) return fn(null);
  const parent = (options.parent !== undefined ? contextOf(options.parent) : null) ?? context.active();
  const links: Link[] = [];
  for (const tp of options.links ?? []) {
    const sc = trace.getSpanContext(contextOf(tp) ?? ROOT_CONTEXT);
    if (sc) links.push({ context: sc });
  }
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message?.slice(0, 300) });
    throw err;
  } finally {
    span.end();
  }
}

/** The span of the request or job running now (to add attributes), null when tracing is off. */
export function activeSpan(): Span | null {
  return enabled ? (trace.getActiveSpan() ?? null) : null;
}
