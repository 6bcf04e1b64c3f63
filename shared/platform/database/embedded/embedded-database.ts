// The embedded database behind the Database interface: collections in memory, persisted to a data
// directory (snapshot + journal per collection, see collection-files.ts) when one is given,
// with a periodic TTL sweep. It serves one process: the directory is locked while open. A journal
// grown past its threshold is folded into the next snapshot by the compaction thread
// (snapshot-folder.ts), one collection at a time, so no write waits for a compaction.
import type { Database, DocCollection, StoredDoc } from '../collection.js';
import { CollectionFiles, collectionNamesIn, type JournalRecord } from './collection-files.js';
import { CollectionStore, type WriteSink } from './collection-store.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { EmbeddedCollection } from './embedded-collection.js';
import { SnapshotFolder } from './snapshot-folder.js';

export interface EmbeddedDatabaseOptions {
  /** Where to persist; undefined keeps everything in memory (tests). */
  dataDir?: string;
  /** How often expired TTL documents are removed. Default 60 s, like MongoDB's TTL monitor. */
  ttlSweepIntervalMs?: number;
  /** Journal size that triggers compaction into a new snapshot (once also larger than the snapshot). Default 16 MiB. */
  compactThresholdBytes?: number;
  /** fsync every journal write: survive power loss, not only a killed process, at the cost of write latency. Default false. */
  fsync?: boolean;
}

const NAMESPACE_DB = 'embedded';
const DEFAULT_TTL_SWEEP_MS = 60_000;
const DEFAULT_COMPACT_BYTES = 16 * 1024 * 1024;
/** After a failed fold, how long before the next one is tried (the journals keep every write meanwhile). */
const FOLD_RETRY_MS = 30_000;

function assertCollectionName(name: string): void {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\u0000') || name.includes('$') || name.startsWith('system.')) {
    throw new Error(`invalid collection name ${JSON.stringify(name)}`);
  }
}

export class EmbeddedDatabase implements Database, WriteSink {
  readonly kind = 'embedded' as const;
  private readonly stores = new Map<string, CollectionStore>();
  private readonly handles = new Map<string, EmbeddedCollection<StoredDoc>>();
  private readonly files = new Map<string, CollectionFiles>();
  private readonly sweepIntervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private failure: Error | null = null;
  private readonly folder = new SnapshotFolder();
  /** The fold in progress (one at a time), or null. */
  private folding: Promise<void> | null = null;
  private foldRetryAt = 0;

  private constructor(
    private readonly options: EmbeddedDatabaseOptions,
    private readonly lock: DataDirLock | null,
  ) {
    this.sweepIntervalMs = options.ttlSweepIntervalMs ?? DEFAULT_TTL_SWEEP_MS;
  }

  static open(options: EmbeddedDatabaseOptions = {}): EmbeddedDatabase {
    const lock = options.dataDir === undefined ? null : lockDataDir(options.dataDir);
    const db = new EmbeddedDatabase(options, lock);
    try {
      if (lock) db.loadAll(lock.dir);
    } catch (err) {
      for (const files of db.files.values()) files.close();
      lock?.release();
      throw err;
    }
    db.startSweeper();
    return db;
  }

  /** Where the data lives, or null in memory. */
  get dataDir(): string | null {
    return this.lock?.dir ?? null;
  }

  private loadAll(dir: string): void {
    for (const name of collectionNamesIn(dir)) {
      const files = this.filesFor(name, dir);
      const state = files.load();
      this.storeFor(name).load(state.docs, state.indexes);
      // Start from a short journal when the last run left a long one, or a fold unfinished.
      if (files.needsCompaction() || files.hasUnfoldedJournal()) this.compact(name);
    }
  }

  private filesFor(name: string, dir: string): CollectionFiles {
    let files = this.files.get(name);
    if (!files) {
      files = new CollectionFiles(dir, name, {
        fsync: this.options.fsync ?? false,
        compactThresholdBytes: this.options.compactThresholdBytes ?? DEFAULT_COMPACT_BYTES,
      });
      this.files.set(name, files);
    }
    return files;
  }

  private storeFor(name: string): CollectionStore {
    let store = this.stores.get(name);
    if (!store) {
      assertCollectionName(name);
      if (this.lock) this.filesFor(name, this.lock.dir);
      store = new CollectionStore(name, `${NAMESPACE_DB}.${name}`, this.lock ? this : null, (other) => this.stores.get(other)?.copies() ?? []);
      this.stores.set(name, store);
    }
    return store;
  }

  private compact(name: string): void {
    const store = this.stores.get(name);
    const files = this.files.get(name);
    if (store && files) files.compact(store.documents(), store.indexSpecs(), store.size);
  }

  /** WriteSink: journals one operation's records before the operation resolves. */
  commit(store: CollectionStore, records: JournalRecord[]): void {
    const files = this.files.get(store.name);
    if (!files) return;
    try {
      files.append(records);
    } catch (err) {
      // Memory now holds a write the disk does not: stop serving rather than diverge further.
      this.failure = new Error(`embedded store: journal write for ${store.name} failed, restart to recover from disk (${(err as Error).message})`);
      throw this.failure;
    }
    this.foldIfDue(files);
  }

  /** Starts the fold of a collection whose journal is due, unless one is already running. */
  private foldIfDue(files: CollectionFiles): void {
    if (this.folding || this.closed || this.failure) return;
    const retry = files.hasUnfoldedJournal();
    if (retry ? Date.now() < this.foldRetryAt : !files.needsCompaction()) return;
    const job = retry ? files.foldJob() : files.rotate();
    this.folding = this.folder
      .fold(job)
      .then((result) => files.folded(result.bytes))
      .catch((err: unknown) => {
        // The journals still hold every write; the fold is tried again later and at close.
        this.foldRetryAt = Date.now() + FOLD_RETRY_MS;
        process.emitWarning(`embedded store: compaction of ${files.name} failed: ${(err as Error).message}`);
      })
      .finally(() => {
        this.folding = null;
      });
  }

  /** A fold is running in the compaction thread. */
  get compacting(): boolean {
    return this.folding !== null;
  }

  /** Resolves once no fold is running (tests, benchmarks and close). */
  async settled(): Promise<void> {
    while (this.folding) await this.folding;
  }

  private readonly assertUsable = (): void => {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error(`embedded database at ${this.dataDir ?? '(memory)'} is closed`);
    // An in-memory database keeps its data across close(), like a client that reconnects.
    if (!this.timer) this.startSweeper();
  };

  private startSweeper(): void {
    this.timer = setInterval(() => {
      try {
        this.sweepExpired();
      } catch (err) {
        process.emitWarning(`embedded store: TTL sweep failed: ${(err as Error).message}`);
      }
    }, this.sweepIntervalMs);
    this.timer.unref();
  }

  /** Removes expired TTL documents now (the timer calls this); returns how many. */
  sweepExpired(now: number = Date.now()): number {
    if (this.failure || this.closed) return 0;
    let removed = 0;
    for (const store of this.stores.values()) removed += store.removeExpired(now);
    return removed;
  }

  collection<T extends StoredDoc>(name: string): DocCollection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new EmbeddedCollection<StoredDoc>(this.storeFor(name), this.assertUsable);
      this.handles.set(name, handle);
    }
    return handle as unknown as DocCollection<T>;
  }

  async ping(): Promise<void> {
    this.assertUsable();
  }

  /** Names of the collections that exist (tests and diagnostics). */
  collectionNames(): string[] {
    return [...this.stores.keys()];
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.lock || this.closed) return;
    this.closed = true;
    await this.settled();
    await this.folder.close();
    let firstError: unknown = null;
    for (const [name, files] of this.files) {
      try {
        if (!this.failure && files.hasJournal()) this.compact(name);
      } catch (err) {
        firstError ??= err;
      } finally {
        files.close();
      }
    }
    this.lock.release();
    if (firstError) throw firstError;
  }
}

/** Opens the embedded database, persisted under `dataDir` when given. */
export async function openEmbeddedDatabase(options: EmbeddedDatabaseOptions = {}): Promise<EmbeddedDatabase> {
  return EmbeddedDatabase.open(options);
}
