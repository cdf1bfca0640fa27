import pg from 'pg';
import type { Logger } from 'pino';

/** The channel the credential triggers notify (migration credential_notifications); the payload is a user id. */
export const CREDENTIAL_CHANNEL = 'credential_changed';

/** How long a looked-up credential is trusted at most, notifications or not. */
const LIFETIME_MS = 60_000;
/** Credentials kept at most; past it the oldest is dropped. */
const MAX_ENTRIES = 10_000;
/** Wait before listening again after the listening connection failed. */
const RECONNECT_MS = 1_000;

interface Entry<Row> {
  row: Row;
  until: number;
}

/**
 * Credentials already looked up (by the digest of the key or token), so that a request needs no
 * round trip to learn who is calling. Trusted only while this process listens for changes: a
 * trigger notifies every process when a key or token is revoked, expires or changes scope, or its
 * user is deactivated or changed, and the user's credentials are forgotten here on receipt (the
 * notification leaves PostgreSQL when the change commits). Without a listening connection the
 * cache answers nothing and every request looks its credential up, as without a cache.
 */
export class CredentialCache<Row extends { user_id: string }> {
  readonly #entries = new Map<string, Entry<Row>>();
  readonly #byUser = new Map<string, Set<string>>();
  /** Counts forgettings: a lookup that started before one may have read what it made stale. */
  #epoch = 0;
  #client: pg.Client | undefined;
  #listening = false;
  #stopped = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly logger?: Logger,
  ) {}

  /** Whether answers may come from the cache (the listening connection is up). */
  get listening(): boolean {
    return this.#listening;
  }

  get(key: string, now: number): Row | undefined {
    if (!this.#listening) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until > now) return entry.row;
    this.#forget(key, entry.row.user_id);
    return undefined;
  }

  /** Take before looking a credential up, and give to `set`. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Keeps a credential looked up since `epoch`, unless a change was heard meanwhile. */
  set(key: string, row: Row, now: number, epoch: number): void {
    if (!this.#listening || epoch !== this.#epoch) return;
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(key)) {
      const [oldest] = this.#entries;
      if (oldest) this.#forget(oldest[0], oldest[1].row.user_id);
    }
    this.#entries.set(key, { row, until: now + LIFETIME_MS });
    let keys = this.#byUser.get(row.user_id);
    if (!keys) this.#byUser.set(row.user_id, (keys = new Set()));
    keys.add(key);
  }

  /** Forgets every credential of `userId`. */
  forgetUser(userId: string): void {
    this.#epoch++;
    for (const key of this.#byUser.get(userId) ?? []) this.#entries.delete(key);
    this.#byUser.delete(userId);
  }

  /** Starts listening; resolves once the first LISTEN is in place (or failed: it is then retried). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#listen();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    this.#down();
    await this.#client?.end().catch(() => undefined);
    this.#client = undefined;
  }

  #forget(key: string, userId: string): void {
    this.#entries.delete(key);
    this.#byUser.get(userId)?.delete(key);
  }

  /** Stops answering and forgets everything: changes may be missed until listening again. */
  #down(): void {
    this.#epoch++;
    this.#listening = false;
    this.#entries.clear();
    this.#byUser.clear();
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    this.#client = client;
    const failed = (error?: Error) => {
      if (this.#client !== client) return;
      this.#down();
      this.#client = undefined;
      void client.end().catch(() => undefined);
      if (this.#stopped) return;
      this.logger?.warn(
        { err: error?.message },
        'credential cache: listening connection lost; looking every credential up',
      );
      this.#retry = setTimeout(() => void this.#listen(), RECONNECT_MS);
      this.#retry.unref();
    };
    client.on('error', failed);
    client.on('end', () => failed());
    client.on('notification', (message) => {
      if (message.channel === CREDENTIAL_CHANNEL && message.payload) this.forgetUser(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${CREDENTIAL_CHANNEL}`);
      if (this.#client === client && !this.#stopped) {
        this.#epoch++;
        this.#listening = true;
      }
    } catch (error) {
      failed(error as Error);
    }
  }
}
