import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { ENV, LOGGER } from '../../../platform/tokens';
import type { Env } from '../../../platform/config/env';
import type { BackgroundWorker } from '../../../platform/queue/worker-runtime';
import { CLUSTERS, type Clusters } from '../../../platform/clusters/clusters';
import { SpareSchemas } from './spare-schemas';

const EVERY_MS = 60_000;

/**
 * Keeps TENANT_SPARE_SCHEMAS spare schemas on every cluster, from the worker process: at start
 * and every minute it makes the missing ones (one at a time per cluster, so that it never
 * competes much with requests). Several worker processes may top up at once; at worst a
 * cluster briefly holds a few spares more than asked.
 */
@injectable()
export class SpareKeeper implements BackgroundWorker {
  readonly name = 'spare-schemas';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    @inject(SpareSchemas) private readonly spares: SpareSchemas,
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(ENV) private readonly env: Env,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.env.TENANT_SPARE_SCHEMAS === 0) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.topUp().finally(() => this.schedule(EVERY_MS));
    }, ms);
    this.timer.unref();
  }

  private async topUp(): Promise<void> {
    for (const cluster of this.clusters.names) {
      if (this.stopped) return;
      try {
        const made = await this.spares.topUp(cluster, this.env.TENANT_SPARE_SCHEMAS, 1);
        if (made) this.logger.info({ cluster, made }, 'spare schemas made');
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, cluster }, 'could not top up spare schemas; trying again in a minute');
      }
    }
  }
}
