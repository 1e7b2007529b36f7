import { gunzipSync } from 'node:zlib';
import { serveOnLoopback } from './loopback-server';

/** A span as an OTLP/HTTP JSON export carries it, with its process's service.name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue ?? '';
}

function attributes(list: { key: string; value: AnyValue }[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((a) => [a.key, value(a.value)]));
}

/**
 * An OTLP/HTTP trace receiver on loopback: what @opentelemetry/exporter-trace-otlp-http sends
 * (JSON, POST /v1/traces, gzip or not), decoded into spans. `url` is what OTEL_EXPORTER_OTLP_ENDPOINT takes.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const requests = { count: 0, rejected: 0 };
  const server = await serveOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.count++;
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`unexpected ${req.method} ${req.url}`);
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const doc = JSON.parse(body.toString('utf8'));
        for (const rs of doc.resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
                status: s.status ?? {},
              });
            }
          }
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      } catch (err) {
        requests.rejected++;
        res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: (err as Error).message }));
      }
    });
  });
  return { url: `http://127.0.0.1:${server.port}`, spans, requests, close: () => server.close() };
}
