import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics with several API processes on one port (WEB_CONCURRENCY): a scrape reaches one process
 * at random, so each process answers with the metrics of all of them, aggregated by prom-client's
 * AggregatorRegistry in the primary (counters and histograms summed; gauges read from Redis or
 * PostgreSQL at scrape time carry `aggregator: 'max'`, as every process reads the same value).
 * The process that took the scrape asks the primary over the cluster's IPC channel.
 */
const ASK = 'competence:metrics:ask';
const ANSWER = 'competence:metrics:answer';
const ASK_TIMEOUT_MS = 6000;

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

let serving = false;

/** In the primary: answers the API processes' requests for the aggregated metrics. */
export function serveClusterMetrics(): void {
  if (serving) return;
  serving = true;
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: Ask) => {
    if (message?.type !== ASK) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: Error) => reply({ error: err.message }),
    );
  });
}

let nextId = 0;
let listening = false;
const pending = new Map<number, (answer: Answer) => void>();

/**
 * In an API process forked by node:cluster: reports `registry` to the primary's aggregation and
 * returns a function that fetches the aggregated text. Null outside such a process.
 */
export function clusterMetricsReader(registry: Registry): (() => Promise<string>) | null {
  if (!cluster.isWorker || !process.send) return null;
  // constructing one adds prom-client's listener that answers the primary with this registry
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  if (!listening) {
    listening = true;
    process.on('message', (message: Answer) => {
      if (message?.type === ANSWER) pending.get(message.id)?.(message);
    });
  }
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('metrics of the other API processes did not arrive'));
      }, ASK_TIMEOUT_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        pending.delete(id);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(answer.error ?? 'no metrics'));
      });
      process.send!({ type: ASK, id } satisfies Ask);
    });
}
