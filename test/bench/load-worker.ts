import fs from 'node:fs';
import autocannon from 'autocannon';

/**
 * The load generator, in a process of its own so that it does not share a CPU budget
 * with the server under test. Reads a JSON config file, prints one JSON result.
 */
interface LoadConfig {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  /** seconds before a request counts as timed out (default 10) */
  timeout?: number;
  requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[];
  /** also report the p99 of the responses that completed within this many seconds of the start */
  leadingSeconds?: number;
}

/** The q-quantile of some latencies (ms), the way autocannon's histogram reads it: the smallest value with q of them at or below it. */
function quantile(latencies: number[], q: number): number {
  if (latencies.length === 0) return 0;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function main() {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as LoadConfig;
  // autocannon runs the requests list from the start on every connection; a shared cursor
  // instead hands each request the next item, so every item is sent once per round.
  let cursor = 0;
  const next = (req: any) => ({ ...req, ...config.requests[cursor++ % config.requests.length] });
  // latencies (ms) of the responses within the leading window, when one is asked for
  const leading: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        url: config.url,
        connections: config.connections,
        ...(config.amount ? { amount: config.amount } : { duration: config.duration ?? 10 }),
        requests: [{ setupRequest: next }],
        timeout: config.timeout ?? 10,
        // autocannon ends a run (and stamps its duration) on its next sample tick: with the default 1 s a
        // run of a fixed amount was reported up to a second long; 100 ms bounds that to a tenth
        sampleInt: 100,
      },
      (err: Error | null, r) => (err ? reject(err) : resolve(r)),
    );
    if (config.leadingSeconds) {
      // the first requests go out on a later tick
      const until = Date.now() + config.leadingSeconds * 1000;
      run.on('response', (_client, _status, _bytes, latency) => {
        if (Date.now() <= until) leading.push(latency);
      });
    }
  });
  const summary = {
    // completed requests over the run's own wall time: the per-second sample mean under-counts
    // runs of a fixed amount, whose last second is partial
    requestsPerSecond: result.requests.total / result.duration,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    durationSeconds: result.duration,
    /** When the first request went out (epoch ms): the start of an end-to-end window, after this process's own start-up. */
    startedAtMs: new Date(result.start).getTime(),
    ...(config.leadingSeconds ? { leading: { seconds: config.leadingSeconds, total: leading.length, p99: quantile(leading, 0.99) } } : {}),
  };
  process.stdout.write(JSON.stringify(summary));
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
