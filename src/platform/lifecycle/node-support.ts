/**
 * The Node.js release lines this product supports and when each one stops getting security fixes
 * (the Node.js release schedule). A start on a line past its end still works, with a warning, so
 * an operator learns it from the log before a fix they need is missing.
 */
const END_OF_LIFE: Readonly<Record<number, string>> = {
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
  26: '2029-04-30',
};

/** The warning for `version` (process.version form, "v20.20.2") on `today`, or null when the line is maintained. */
export function nodeEndOfLifeWarning(version: string, today: Date = new Date()): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  const end = END_OF_LIFE[major];
  if (!end) {
    return major < 20 ? `Node.js ${version} is not supported: use Node.js 24 (see .nvmrc)` : null;
  }
  if (today.toISOString().slice(0, 10) <= end) return null;
  return `Node.js ${major} reached its end of life on ${end} and gets no security fixes: run Node.js 24 (see .nvmrc)`;
}

/** Logs the warning of nodeEndOfLifeWarning once at start-up, if any. */
export function warnIfNodeEndOfLife(logger: { warn(msg: string): void }): void {
  const warning = nodeEndOfLifeWarning(process.version);
  if (warning) logger.warn(warning);
}
