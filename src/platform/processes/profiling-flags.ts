/** node --cpu-prof / --heap-prof given to the API profile its child processes too (API processes, the worker process). */
export function profilingFlags(): string[] {
  return process.execArgv.filter((a) => /^--(cpu|heap)-prof/.test(a));
}
