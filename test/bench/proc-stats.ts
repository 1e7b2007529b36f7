import fs from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

/**
 * CPU seconds of a process so far (user + system); with `reaped`, those of its children that have
 * ended and been waited for too (a PostgreSQL backend that closed counts in the postmaster's).
 */
export function cpuSeconds(pid: number, opts: { reaped?: boolean } = {}): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const children = opts.reaped ? Number(fields[13]) + Number(fields[14]) : 0;
    return (Number(fields[11]) + Number(fields[12]) + children) / TICKS;
  } catch {
    return 0;
  }
}

export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Every process whose command line mentions `needle` (e.g. the postgres data directory),
 * plus their children (postgres backends name only themselves on their command line).
 */
export function pidsMatching(needle: string): number[] {
  const matched = new Set<number>();
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const pid = Number(entry);
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) matched.add(pid);
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  for (const [pid, ppid] of parents) if (matched.has(ppid)) matched.add(pid);
  return [...matched];
}

/** The executable name of a process ("" when gone). */
export function commOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** `root` and every process below it (the API process and the worker process it starts). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  for (const queue = [root]; queue.length;) {
    const pid = queue.pop()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Proportional set size: a page shared by n processes counts 1/n in each, so the sum over
 * PostgreSQL's backends does not count shared buffers once per backend, as RSS does.
 */
export function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples RSS and PSS of process groups and keeps the peaks. PSS is read every `pssEvery`-th
 * sample only: reading smaps_rollup walks a process's page tables, about 0.8 ms of kernel time per
 * PostgreSQL backend (26 ms for 31 processes), which every 250 ms took a tenth of a core from the
 * product under test; RSS (a status line) and the process list cost about 3 ms a sample.
 */
export class PeakSampler {
  readonly peaks = new Map<string, number>();
  readonly pssPeaks = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly groups: Record<string, () => number[]>) {}
  start(everyMs = 250, pssEvery = 8): void {
    let n = 0;
    this.timer = setInterval(() => {
      const withPss = n++ % pssEvery === 0;
      for (const [name, pids] of Object.entries(this.groups)) {
        const members = pids();
        const rss = members.reduce((sum, pid) => sum + rssBytes(pid), 0);
        this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, rss));
        if (!withPss) continue;
        const pss = members.reduce((sum, pid) => sum + pssBytes(pid), 0);
        this.pssPeaks.set(name, Math.max(this.pssPeaks.get(name) ?? 0, pss));
      }
    }, everyMs);
    this.timer.unref();
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
