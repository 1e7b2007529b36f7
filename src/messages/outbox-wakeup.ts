import { inject, injectable } from 'tsyringe';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { DATABASE_URL, LOGGER } from '../platform/tokens';

/** Sent by the triggers of tenant migration 110_outbox_notify, payload the tenant's schema. */
export const OUTBOX_PENDING_CHANNEL = 'outbox_pending';
const RECONNECT_MS = 1000;

export interface OutboxWakeupHandlers {
  /** A tenant's transaction committed deliveries that need the relay. */
  pending(schema: string): void;
  /**
   * The listener is (again) connected. Notifications sent while it was not are lost, so the
   * relay looks at every tenant once.
   */
  connected(): void;
}

/**
 * The relay's ear: one PostgreSQL connection LISTENing on `outbox_pending`. PostgreSQL delivers a
 * notification to every listener connected when the writing transaction commits, so a relay that
 * listens learns of every new delivery without polling; only the time it was not listening needs
 * a sweep, which `connected` asks for. A lost connection is retried every second.
 */
@injectable()
export class OutboxWakeup {
  private client: Client | null = null;
  private stopped = true;
  private retry: NodeJS.Timeout | undefined;
  private handlers: OutboxWakeupHandlers | null = null;

  constructor(
    @inject(DATABASE_URL) private readonly databaseUrl: string,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  get listening(): boolean {
    return this.client !== null && !this.stopped;
  }

  async start(handlers: OutboxWakeupHandlers): Promise<void> {
    this.handlers = handlers;
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl, options: '-c search_path=' });
    let gone = false;
    const lost = (why: string) => {
      if (gone) return; // one reconnect per connection, however many events report its end
      gone = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      if (this.stopped) return;
      this.logger.warn({ err: why }, 'outbox relay: lost its wake-up listener; reconnecting (then it sweeps every tenant)');
      clearTimeout(this.retry);
      this.retry = setTimeout(() => void this.connect(), RECONNECT_MS);
      this.retry.unref();
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
    this.client = client;
    this.handlers?.connected();
  }
}
