import { inject, injectable } from 'tsyringe';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { LOGGER } from '../../platform/tokens';
import { CLUSTERS, type Clusters } from '../../platform/clusters/clusters';

/** Sent by the triggers of tenant migration 120_outbox_notify, payload the tenant's schema. */
export const OUTBOX_PENDING_CHANNEL = 'outbox_pending';
const RECONNECT_MS = 1000;

export interface OutboxWakeupHandlers {
  /** A tenant's transaction committed deliveries that need the relay. */
  pending(schema: string): void;
  /**
   * A listener is (again) connected. Notifications sent while it was not are lost, so the
   * relay looks at every tenant once.
   */
  connected(): void;
}

/**
 * The relay's ear: one PostgreSQL connection per cluster LISTENing on `outbox_pending`. PostgreSQL delivers a
 * notification to every listener connected when the writing transaction commits, so a relay that
 * listens learns of every new delivery without polling; only the time it was not listening needs
 * a sweep, which `connected` asks for. A lost connection is retried every second.
 */
@injectable()
export class OutboxWakeup {
  /** cluster name -> its connected listener */
  private readonly clients = new Map<string, Client>();
  private stopped = true;
  private readonly retries = new Set<NodeJS.Timeout>();
  private handlers: OutboxWakeupHandlers | null = null;

  constructor(
    @inject(CLUSTERS) private readonly clusters: Clusters,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** True while every cluster has a listener. */
  get listening(): boolean {
    return !this.stopped && this.clients.size === this.clusters.names.length;
  }

  async start(handlers: OutboxWakeupHandlers): Promise<void> {
    this.handlers = handlers;
    this.stopped = false;
    await Promise.all(this.clusters.names.map((name) => this.connect(name)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.retries) clearTimeout(t);
    this.retries.clear();
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((c) => c.end().catch(() => {})));
  }

  private async connect(cluster: string): Promise<void> {
    const client = new Client({ connectionString: this.clusters.url(cluster), options: '-c search_path=' });
    let gone = false;
    const lost = (why: string) => {
      if (gone) return; // one reconnect per connection, however many events report its end
      gone = true;
      if (this.clients.get(cluster) === client) this.clients.delete(cluster);
      client.end().catch(() => {});
      if (this.stopped) return;
      this.logger.warn({ err: why, cluster }, 'outbox relay: lost its wake-up listener; reconnecting (then it sweeps every tenant)');
      const retry = setTimeout(() => {
        this.retries.delete(retry);
        void this.connect(cluster);
      }, RECONNECT_MS);
      retry.unref();
      this.retries.add(retry);
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      if (n.channel === OUTBOX_PENDING_CHANNEL && n.payload) this.handlers?.pending(n.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${OUTBOX_PENDING_CHANNEL}`);
    } catch (err) {
      lost((err as Error).message);
      return;
    }
    if (this.stopped || gone) {
      gone = true;
      await client.end().catch(() => {});
      return;
    }
    this.clients.set(cluster, client);
    this.handlers?.connected();
  }
}
