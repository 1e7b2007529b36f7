import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What load-worker.ts takes (connections and duration default to the bench's flags). */
export interface Load {
  url: string;
  requests: LoadRequest[];
  amount?: number;
  connections?: number;
  timeout?: number;
  duration?: number;
  /** also report the p99 of the responses within this many seconds of the start */
  leadingSeconds?: number;
}

/** What load-worker.ts prints. */
export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  p50: number;
  p99: number;
  /** connection errors and timeouts */
  errors: number;
  non2xx: number;
  durationSeconds: number;
  /** When the first request went out (epoch ms). */
  startedAtMs: number;
  /** with Load.leadingSeconds: the responses within those first seconds */
  leading?: { seconds: number; total: number; p99: number };
}

/** One autocannon run in a process of its own (load-worker.ts). */
export function runLoad(config: Load & { connections: number }): Promise<LoadResult> {
  const file = path.join(os.tmpdir(), `bench-load-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(config));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'load-worker.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      fs.rmSync(file, { force: true });
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`load worker exited ${code}`));
    });
  });
}
