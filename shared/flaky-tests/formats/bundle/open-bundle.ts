// Reader for the hosted CLI's bundle upload (flaky-tests notes §2.2): a tar archive compressed
// with zstd whose first entry is `meta.json`, followed by `junit/N` report copies, `internal/N` or
// `internal.bin` protobuf reports, and optionally `CODEOWNERS` and `bazel_bep.json`. The tar is
// walked entry by entry over the decompressed stream, so memory stays bounded.
import { extract as tarExtract, type Extract } from 'tar-stream';
import { BundleError } from './bundle-error.js';
import { validateBundleMeta, type BundleMeta } from './bundle-meta-schema.js';
import { decompressZstd, ZSTD_DEFAULTS } from './zstd-stream.js';

/** tar-stream's entry type (a streamx Readable with the header), not exported by name. */
type TarEntry = Extract extends AsyncIterable<infer E> ? E : never;

export interface BundleLimits {
  /** Compressed bytes accepted. Default 256 MiB. */
  maxCompressedBytes?: number;
  /** Decompressed (tar) bytes accepted. Default 2 GiB. */
  maxUncompressedBytes?: number;
  /** Largest zstd window a frame may declare. Default 64 MiB (the CLI's level 15 uses 4–8 MiB). */
  maxWindowBytes?: number;
  /** Time spent decompressing. Default 60 s. */
  maxDecodeMillis?: number;
  /** Size cap of meta.json. Default 16 MiB. */
  maxMetaBytes?: number;
  /** Size cap of any other entry. Default 1 GiB. */
  maxEntryBytes?: number;
  /** Number of tar entries (meta.json included). Default 10,000. */
  maxEntries?: number;
}

const DEFAULTS: Required<BundleLimits> = {
  ...ZSTD_DEFAULTS,
  maxMetaBytes: 16 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024 * 1024,
  maxEntries: 10_000,
};

export type BundleFileKind = 'junit' | 'internal-bin' | 'codeowners' | 'bazel-bep' | 'other';

export interface BundleFile {
  /** Entry name inside the archive, e.g. `junit/0`. */
  path: string;
  kind: BundleFileKind;
  size: number;
  /** Where the CLI found the file (meta.json `file_sets`), repo-relative when known. */
  originalPath: string | null;
  /**
   * The entry's bytes. Read it before asking for the next file; whatever is left unread is
   * skipped when the iteration advances.
   */
  stream: AsyncIterable<Buffer>;
}

export interface OpenedBundle {
  meta: BundleMeta;
  /** Remaining entries in archive order. Iterate once. */
  files: AsyncIterable<BundleFile>;
}

/** Archive entry names: relative, `/`-separated, no `..` (we never write them to disk, callers might). */
export function safeEntryPath(name: string): string {
  const p = name.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.split('/').includes('..') || p.includes('\0')) {
    throw new BundleError('unsafe-path', `unsafe entry name in bundle: ${JSON.stringify(name)}`);
  }
  return p;
}

export function bundleFileKind(path: string): BundleFileKind {
  if (/^junit\/\d+$/.test(path)) return 'junit';
  if (path === 'internal.bin' || /^internal\/\d+$/.test(path)) return 'internal-bin';
  if (path === 'CODEOWNERS') return 'codeowners';
  if (path === 'bazel_bep.json') return 'bazel-bep';
  return 'other';
}

function originalPathOf(meta: BundleMeta, path: string): string | null {
  for (const set of meta.file_sets ?? []) {
    for (const f of set.files ?? []) {
      if (f.path === path) {
        const rel = typeof f.original_path_rel === 'string' ? f.original_path_rel : null;
        return rel ?? (typeof f.original_path === 'string' ? f.original_path : null);
      }
    }
  }
  return null;
}

/** One entry's bytes; remembers whether they were read to the end so the rest can be skipped. */
class EntryReader implements AsyncIterable<Buffer> {
  private done = false;
  private started = false;
  private readonly it: AsyncIterator<Buffer>;

  constructor(entry: TarEntry) {
    // tar-stream entries yield Buffers; streamx types them as unknown.
    this.it = entry[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer, void, undefined> {
    if (this.started) throw new Error('bundle entry can be read only once');
    this.started = true;
    while (!this.done) {
      const r = await this.it.next();
      if (r.done) {
        this.done = true;
        return;
      }
      yield r.value;
    }
  }

  /** Reads and discards what the consumer left (the tar stream cannot move on otherwise). */
  async skipRest(): Promise<void> {
    while (!this.done) {
      const r = await this.it.next();
      if (r.done) this.done = true;
    }
  }

  async readAll(limit: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const b of this) {
      size += b.length;
      if (size > limit) throw new BundleError('invalid-meta', `meta.json larger than ${limit} bytes`);
      parts.push(b);
    }
    return Buffer.concat(parts);
  }
}

function wrapTarError(err: unknown): Error {
  if (err instanceof BundleError) return err;
  return new BundleError('corrupt-tar', `invalid tar archive: ${(err as Error).message}`);
}

/**
 * Opens a bundle: decompresses and reads `meta.json` (which must be the first entry, as the CLI
 * writes it and its own reader requires), then hands out the other entries one by one.
 * Throws BundleError for malformed or oversized input, also while iterating `files`.
 */
export async function openBundle(source: AsyncIterable<Uint8Array | string>, limits: BundleLimits = {}): Promise<OpenedBundle> {
  const l = { ...DEFAULTS, ...limits };
  const extract = tarExtract();
  let pumpError: unknown = null;
  const waitForDrain = (): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        extract.off('drain', done);
        extract.off('close', done);
        resolve();
      };
      extract.on('drain', done);
      extract.on('close', done);
    });
  const pump = (async () => {
    try {
      for await (const bytes of decompressZstd(source, l)) {
        if (extract.destroyed) return;
        if (!extract.write(bytes)) await waitForDrain();
      }
      extract.end(undefined); // streamx's end() takes an optional final chunk
    } catch (err) {
      pumpError = err;
      extract.destroy(err as Error);
    }
  })();
  const entries = extract[Symbol.asyncIterator]();
  const next = async (): Promise<IteratorResult<TarEntry>> => {
    try {
      return await entries.next();
    } catch (err) {
      throw wrapTarError(pumpError ?? err);
    }
  };
  const abort = async (): Promise<void> => {
    extract.destroy();
    await pump;
  };

  let meta: BundleMeta;
  try {
    const first = await next();
    if (first.done) throw new BundleError('missing-meta', 'bundle is an empty archive (no meta.json)');
    const name = safeEntryPath(first.value.header.name);
    if (name !== 'meta.json') throw new BundleError('missing-meta', `first bundle entry is ${JSON.stringify(name)}, expected meta.json`);
    if ((first.value.header.size ?? 0) > l.maxMetaBytes) throw new BundleError('invalid-meta', `meta.json larger than ${l.maxMetaBytes} bytes`);
    const text = (await new EntryReader(first.value).readAll(l.maxMetaBytes)).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (err) {
      throw new BundleError('invalid-meta', `meta.json is not valid JSON: ${(err as Error).message}`);
    }
    meta = validateBundleMeta(parsed);
  } catch (err) {
    await abort();
    throw err instanceof BundleError ? err : wrapTarError(pumpError ?? err);
  }

  async function* files(): AsyncGenerator<BundleFile, void, undefined> {
    let count = 1;
    let previous: EntryReader | null = null;
    let finished = false;
    try {
      for (;;) {
        if (previous) {
          try {
            await previous.skipRest();
          } catch (err) {
            throw wrapTarError(pumpError ?? err);
          }
        }
        const r = await next();
        if (r.done) {
          finished = true;
          break;
        }
        count++;
        if (count > l.maxEntries) throw new BundleError('too-many-entries', `bundle has more than ${l.maxEntries} entries`);
        const header = r.value.header;
        const reader = new EntryReader(r.value);
        previous = reader;
        const type = header.type ?? 'file';
        if (type !== 'file' && type !== 'contiguous-file') continue; // directories, links: nothing to read
        const path = safeEntryPath(header.name);
        const size = header.size ?? 0;
        if (size > l.maxEntryBytes) throw new BundleError('entry-too-large', `${path} is ${size} bytes (limit ${l.maxEntryBytes})`);
        yield { path, kind: bundleFileKind(path), size, originalPath: originalPathOf(meta, path), stream: reader };
      }
    } finally {
      if (!finished) extract.destroy();
      await pump;
    }
  }

  return { meta, files: files() };
}
