/**
 * Runs `pass` again and again, one at a time: after each pass it sleeps for as long as the pass
 * says (its return value, in ms), unless woken earlier. wake() during a pass does not start a
 * second one; the pass is expected to see why it was woken and ask for a short sleep.
 */
export class WakeableLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private passing = false;
  private stopped = true;

  constructor(private readonly pass: () => Promise<number>) {}

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

  /** A pass now, unless one is running. */
  wake(): void {
    if (this.stopped || this.passing) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    // setTimeout takes at most 2^31-1 ms
    this.timer = setTimeout(() => {
      this.passing = true;
      let next = 0;
      this.running = this.pass()
        .then((ms) => {
          next = ms;
        })
        .finally(() => {
          this.passing = false;
          this.schedule(next);
        });
    }, Math.min(Math.max(0, ms), 2 ** 31 - 1));
  }
}
