/**
 * V8 flags every process of the product starts with (package.json's start, api and workers scripts,
 * and the API and worker processes forked from them). They must be given at start: V8 sizes its heap
 * when the process starts, and v8.setFlagsFromString afterwards changes nothing (measured).
 *
 * --max-semi-space-size=64: the young generation (where a request's short-lived objects live)
 * may grow to 64 MiB per semi-space instead of node's 16. GET /api/person: 0.89-0.96 × the API's
 * CPU per request (get-ab.ts, alternating rounds), 1.05-1.15 × the req/s; 341 scavenges instead of
 * 1,217 for the same rounds, with about the same total pause on the request thread (4.6 s against
 * 4.7 s): the saving is not in those pauses, most likely in the process's other threads (V8
 * scavenges in parallel, waking its helper threads each time). Peak RSS of the API under load 359 → 456 MB (128 MiB: a further
 * 0.95-0.97 × CPU for 524 MB; 32 MiB: 0.97). Node's own guidance: benchmark 16, 32, 64 and 128
 * (node's CLI documentation, --max-semi-space-size). Details: ./README.md.
 */
export const PRODUCT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

const PROFILING = /^--(cpu|heap)-prof/;

/** The name of a flag ('--max-semi-space-size' of '--max-semi-space-size=64'). */
const flagName = (flag: string) => flag.split('=')[0];

/**
 * The node flags of a child process (an API process, the worker process): the profiling flags
 * this process was given (node --cpu-prof profiles the children too), and the product's flags,
 * where this process was started with a value of its own for one of them, that value.
 */
export function childNodeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const own = (name: string) => execArgv.find((a) => flagName(a) === name);
  return [...execArgv.filter((a) => PROFILING.test(a)), ...PRODUCT_NODE_FLAGS.map((f) => own(flagName(f)) ?? f)];
}
