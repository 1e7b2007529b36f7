/**
 * Runs `pass` again and again, one at a time: after each pass it sleeps for as long as the pass
 * says (its return value, in ms), unless woken earlier. wake() during a pass does not start a
 * second one; the pass is expected to see why it was woken and ask for a short sleep. Wake-ups
 * come at most every `minGapMs` (from the start of one pass to the next): the first after a quiet
 * spell goes at once, a stream of them (a NOTIFY per commit) is taken together.
 */
export class WakeableLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private passing = false;
  private stopped = true;
  private lastStart = 0;
  private dueAt = 0;

  constructor(
    private readonly pass: () => Promise<number>,
    private readonly minGapMs = 0,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** No new pass starts; resolves when the current one has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** A pass now (or minGapMs after the last one started), unless one is running. */
  wake(): void {
    if (this.stopped || this.passing) return;
    const at = Math.max(Date.now(), this.lastStart + this.minGapMs);
    if (this.timer && this.dueAt <= at) return; // a pass is due sooner anyway
    if (this.timer) clearTimeout(this.timer);
    this.schedule(at - Date.now());
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    // setTimeout takes at most 2^31-1 ms
    const delay = Math.min(Math.max(0, ms), 2 ** 31 - 1);
    this.dueAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.passing = true;
      this.lastStart = Date.now();
      let next = 0;
      this.running = this.pass()
        .then((ms) => {
          next = ms;
        })
        .finally(() => {
          this.passing = false;
          this.schedule(next);
        });
    }, delay);
  }
}
