import { Client } from 'pg';
import type { Clusters } from './clusters';

const RECONNECT_MS = 1000;

export interface ClusterListenerHandlers {
  /** A notification on one of the channels (payload as sent; empty payloads are passed on too). */
  notification(channel: string, payload: string, cluster: string): void;
  /**
   * The cluster's connection is listening (again). What was sent while it was not is lost: the
   * user catches up here (a relay sweeps, a cache starts a new epoch).
   */
  connected?(cluster: string): void;
  /** The cluster's connection failed or ended (also when it never got to listen); retried every second. */
  lost?(cluster: string, why: string): void;
}

/**
 * One PostgreSQL connection per cluster LISTENing on `channels`. PostgreSQL delivers a
 * notification to every connection listening when the sending transaction commits, so the
 * user learns of every write a trigger announces without polling; only the time a connection
 * was not listening needs catching up, which `connected` tells. A lost connection is
 * reconnected after a second, until stop(). Used by the principal cache and messaging's relays.
 */
export class ClusterListener {
  /** cluster name -> its listening connection */
  private readonly clients = new Map<string, Client>();
  private readonly retries = new Set<NodeJS.Timeout>();
  private stopped = true;
  private handlers: ClusterListenerHandlers | null = null;

  constructor(
    private readonly clusters: Clusters,
    private readonly channels: readonly string[],
  ) {
    for (const c of channels) if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new Error(`not a channel name: ${c}`);
  }

  /** True while every cluster has a listening connection. */
  get listening(): boolean {
    return !this.stopped && this.clients.size === this.clusters.names.length;
  }

  /** Resolves when every cluster has been tried once (a failed one is being retried). */
  async start(handlers: ClusterListenerHandlers): Promise<void> {
    if (!this.stopped) return;
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
      this.handlers?.lost?.(cluster, why);
      const retry = setTimeout(() => {
        this.retries.delete(retry);
        void this.connect(cluster);
      }, RECONNECT_MS);
      retry.unref();
      this.retries.add(retry);
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => this.handlers?.notification(n.channel, n.payload ?? '', cluster));
    try {
      await client.connect();
      await client.query(this.channels.map((c) => `listen ${c}`).join('; '));
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
    this.handlers?.connected?.(cluster);
  }
}
