// Reader for the hosted CLI's bundle upload (flaky-tests notes §2.2): a tar archive compressed
// with zstd whose first entry is `meta.json`, followed by `junit/N` report copies, `internal/N` or
// `internal.bin` protobuf reports, and optionally `CODEOWNERS` and `bazel_bep.json`.
//
// Everything streams: zstd is decoded block by block (fzstd's streaming Decompress) and the tar is
// walked entry by entry, so memory stays bounded whatever the bundle's size. Because uploads are
// untrusted, a small frame walker checks every zstd frame header *before* the decoder sees it:
// the decoder allocates the frame's declared window up front, and bundles may claim up to 2 GiB.
import { Decompress } from 'fzstd';
import { extract as tarExtract, type Extract } from 'tar-stream';

/** tar-stream's entry type (a streamx Readable with the header), not exported by name. */
type TarEntry = Extract extends AsyncIterable<infer E> ? E : never;

export type BundleErrorCode =
  | 'not-zstd' // input does not start with a zstd frame
  | 'corrupt-zstd' // invalid or truncated zstd data
  | 'zstd-window-too-large' // a frame asks for more window memory than allowed
  | 'zstd-dictionary' // frames needing a dictionary are not supported
  | 'too-large' // compressed or decompressed size over the limit
  | 'corrupt-tar'
  | 'missing-meta' // first entry is not meta.json
  | 'invalid-meta'
  | 'too-many-entries'
  | 'entry-too-large'
  | 'unsafe-path'; // absolute or `..` entry names

export class BundleError extends Error {
  constructor(
    readonly code: BundleErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BundleError';
  }
}

export interface BundleLimits {
  /** Compressed bytes accepted. Default 256 MiB. */
  maxCompressedBytes?: number;
  /** Decompressed (tar) bytes accepted. Default 2 GiB. */
  maxUncompressedBytes?: number;
  /** Largest zstd window a frame may declare. Default 64 MiB (the CLI's level 15 uses 4–8 MiB). */
  maxWindowBytes?: number;
  /** Size cap of meta.json. Default 16 MiB. */
  maxMetaBytes?: number;
  /** Size cap of any other entry. Default 1 GiB. */
  maxEntryBytes?: number;
  /** Number of tar entries (meta.json included). Default 10,000. */
  maxEntries?: number;
}

const DEFAULTS: Required<BundleLimits> = {
  maxCompressedBytes: 256 * 1024 * 1024,
  maxUncompressedBytes: 2 * 1024 * 1024 * 1024,
  maxWindowBytes: 64 * 1024 * 1024,
  maxMetaBytes: 16 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024 * 1024,
  maxEntries: 10_000,
};

// ---- zstd ------------------------------------------------------------------------------------

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
/** Largest block content the format allows (Block_Maximum_Size). */
const MAX_BLOCK_BYTES = 128 * 1024;

type WalkState = 'magic' | 'fhd' | 'header-rest' | 'block-header' | 'block-body' | 'checksum' | 'skip-size' | 'skip-body';

/**
 * Follows zstd frame structure (RFC 8878 §3.1) without decoding: validates headers, enforces the
 * window limit and reports where blocks end, so the decoder can be fed one block at a time.
 */
export class ZstdFrameWalker {
  private state: WalkState = 'magic';
  private readonly field = new Uint8Array(16);
  private fieldLength = 0;
  private fieldNeeded = 4;
  private remaining = 0;
  private fhd = 0;
  private blockMax = MAX_BLOCK_BYTES;
  private lastBlock = false;
  private frames = 0;

  constructor(private readonly maxWindowBytes: number) {}

  /** Consumes a chunk; returns chunk offsets just after each completed block or frame. */
  walk(chunk: Uint8Array): number[] {
    const boundaries: number[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'block-body' || this.state === 'checksum' || this.state === 'skip-body') {
        const take = Math.min(this.remaining, chunk.length - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) {
          this.afterSkip();
          boundaries.push(i);
        }
        continue;
      }
      const take = Math.min(this.fieldNeeded - this.fieldLength, chunk.length - i);
      this.field.set(chunk.subarray(i, i + take), this.fieldLength);
      this.fieldLength += take;
      i += take;
      if (this.fieldLength === this.fieldNeeded) {
        if (this.onField()) boundaries.push(i);
      }
    }
    return boundaries;
  }

  /** Call at end of input: throws unless the input ended exactly after a complete frame. */
  finish(): void {
    if (this.frames === 0 && this.state === 'magic' && this.fieldLength === 0) throw new BundleError('not-zstd', 'empty input: no zstd frame');
    if (this.state !== 'magic' || this.fieldLength !== 0) throw new BundleError('corrupt-zstd', 'zstd data ends in the middle of a frame');
  }

  private expect(state: WalkState, bytes: number): void {
    this.state = state;
    this.fieldNeeded = bytes;
    this.fieldLength = 0;
  }

  private le(offset: number, bytes: number): number {
    let v = 0;
    for (let k = bytes - 1; k >= 0; k--) v = v * 256 + this.field[offset + k]!;
    return v;
  }

  /** Handles a completed fixed-size field; returns true when a block/frame boundary was reached. */
  private onField(): boolean {
    switch (this.state) {
      case 'magic': {
        const magic = this.le(0, 4);
        if (magic === ZSTD_MAGIC) {
          this.expect('fhd', 1);
        } else if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) {
          this.expect('skip-size', 4);
        } else {
          throw this.frames === 0
            ? new BundleError('not-zstd', 'not zstd-compressed data (bad magic number)')
            : new BundleError('corrupt-zstd', 'garbage after the last zstd frame');
        }
        return false;
      }
      case 'fhd': {
        const fhd = this.field[0]!;
        if (fhd & 0x08) throw new BundleError('corrupt-zstd', 'reserved bit set in zstd frame header');
        this.fhd = fhd;
        const singleSegment = (fhd >> 5) & 1;
        const fcsFlag = fhd >> 6;
        const dictFlag = fhd & 3;
        const rest = (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictFlag]! + (fcsFlag === 0 ? singleSegment : 1 << fcsFlag);
        if (rest === 0) return this.onHeader();
        this.expect('header-rest', rest);
        return false;
      }
      case 'header-rest':
        return this.onHeader();
      case 'block-header': {
        const v = this.le(0, 3);
        this.lastBlock = (v & 1) === 1;
        const type = (v >> 1) & 3;
        const size = v >>> 3;
        if (type === 3) throw new BundleError('corrupt-zstd', 'reserved zstd block type');
        if (size > this.blockMax) throw new BundleError('corrupt-zstd', 'zstd block larger than the format allows');
        this.remaining = type === 1 ? 1 : size; // RLE blocks store one byte
        this.state = 'block-body';
        if (this.remaining === 0) {
          this.afterSkip();
          return true;
        }
        return false;
      }
      case 'skip-size':
        this.remaining = this.le(0, 4);
        this.state = 'skip-body';
        if (this.remaining === 0) {
          this.afterSkip();
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  private onHeader(): boolean {
    const fhd = this.fhd;
    const singleSegment = (fhd >> 5) & 1;
    const fcsFlag = fhd >> 6;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    let offset = 0;
    let window = 0;
    if (!singleSegment) {
      const wd = this.field[0]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
      offset = 1;
    }
    if (dictBytes > 0 && this.le(offset, dictBytes) !== 0) {
      throw new BundleError('zstd-dictionary', 'zstd frames that need a dictionary are not supported');
    }
    offset += dictBytes;
    if (singleSegment) {
      const fcsBytes = fcsFlag === 0 ? 1 : 1 << fcsFlag;
      // The frame content size is the window in single-segment mode.
      window = this.le(offset, fcsBytes) + (fcsFlag === 1 ? 256 : 0);
    }
    if (window > this.maxWindowBytes) {
      throw new BundleError('zstd-window-too-large', `zstd frame needs a ${window}-byte window (limit ${this.maxWindowBytes})`);
    }
    this.blockMax = Math.min(Math.max(window, 1), MAX_BLOCK_BYTES);
    this.expect('block-header', 3);
    return false;
  }

  private afterSkip(): void {
    if (this.state === 'block-body') {
      if (!this.lastBlock) {
        this.expect('block-header', 3);
        return;
      }
      if ((this.fhd >> 2) & 1) {
        this.state = 'checksum';
        this.remaining = 4;
        return;
      }
    }
    // End of a frame (after its last block or checksum) or of a skippable frame.
    if (this.state !== 'skip-body') this.frames++;
    this.expect('magic', 4);
  }
}

function asBytes(chunk: Uint8Array | string): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

function wrapZstdError(err: unknown): Error {
  if (err instanceof BundleError) return err;
  return new BundleError('corrupt-zstd', `invalid zstd data: ${(err as Error).message}`);
}

export interface ZstdLimits {
  maxCompressedBytes?: number;
  maxUncompressedBytes?: number;
  maxWindowBytes?: number;
}

/**
 * Streams zstd-compressed bytes out decompressed. Each push to the decoder ends at a block
 * boundary, so one step produces at most one block (≤ 128 KiB) and back-pressure holds.
 */
export async function* decompressZstd(
  source: AsyncIterable<Uint8Array | string>,
  limits: ZstdLimits = {},
): AsyncGenerator<Buffer, void, undefined> {
  const maxIn = limits.maxCompressedBytes ?? DEFAULTS.maxCompressedBytes;
  const maxOut = limits.maxUncompressedBytes ?? DEFAULTS.maxUncompressedBytes;
  const walker = new ZstdFrameWalker(limits.maxWindowBytes ?? DEFAULTS.maxWindowBytes);
  const out: Buffer[] = [];
  let produced = 0;
  const decoder = new Decompress((data) => {
    if (data.length === 0) return;
    produced += data.length;
    if (produced > maxOut) throw new BundleError('too-large', `bundle exceeds ${maxOut} bytes after decompression`);
    out.push(Buffer.from(data)); // copy: the decoder may reuse its buffers
  });
  const push = (bytes: Uint8Array, final: boolean): void => {
    try {
      decoder.push(bytes, final);
    } catch (err) {
      throw wrapZstdError(err);
    }
  };
  let consumed = 0;
  for await (const raw of source) {
    const chunk = asBytes(raw);
    consumed += chunk.length;
    if (consumed > maxIn) throw new BundleError('too-large', `bundle exceeds ${maxIn} compressed bytes`);
    const boundaries = walker.walk(chunk);
    let start = 0;
    for (const end of [...boundaries, chunk.length]) {
      if (end > start) {
        push(chunk.subarray(start, end), false);
        start = end;
      }
      while (out.length > 0) yield out.shift()!;
    }
  }
  walker.finish();
  push(new Uint8Array(0), true);
  while (out.length > 0) yield out.shift()!;
}

// ---- meta.json -------------------------------------------------------------------------------

export interface BundleRepo {
  repo?: { host?: string; owner?: string; name?: string };
  repo_root?: string;
  repo_url?: string;
  repo_head_sha?: string;
  repo_head_sha_short?: string;
  repo_head_branch?: string;
  repo_head_commit_epoch?: number;
  repo_head_commit_message?: string;
  repo_head_author_name?: string;
  repo_head_author_email?: string;
  use_uncloned_repo?: boolean;
  [key: string]: unknown;
}

export interface BundledFileMeta {
  original_path?: string;
  original_path_rel?: string | null;
  path?: string;
  owners?: string[];
  team?: string | null;
  [key: string]: unknown;
}

export interface BundleFileSet {
  file_set_type?: string;
  files?: BundledFileMeta[];
  glob?: string;
  resolved_status?: unknown;
  [key: string]: unknown;
}

/** `meta.json` (BundleMeta, flattened; notes §2.2). Only the fields we read are typed. */
export interface BundleMeta {
  version?: string;
  cli_version?: string;
  org?: string;
  repo?: BundleRepo;
  bundle_upload_id?: string;
  bundle_upload_id_v2?: string;
  tags?: { key: string; value: string }[];
  file_sets?: BundleFileSet[];
  envs?: Record<string, string>;
  upload_time_epoch?: number;
  test_command?: string | null;
  quarantined_tests?: unknown[];
  failed_tests?: unknown[];
  codeowners?: unknown;
  num_files?: number;
  num_tests?: number;
  variant?: string | null;
  [key: string]: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the shapes we rely on; other fields pass through untouched. */
export function validateBundleMeta(value: unknown): BundleMeta {
  const fail = (why: string): never => {
    throw new BundleError('invalid-meta', `meta.json: ${why}`);
  };
  if (!isObject(value)) return fail('not a JSON object');
  const optionalString = (key: string): void => {
    if (value[key] !== undefined && value[key] !== null && typeof value[key] !== 'string') fail(`${key} must be a string`);
  };
  for (const key of ['version', 'cli_version', 'org', 'bundle_upload_id', 'bundle_upload_id_v2', 'variant']) optionalString(key);
  if (value.repo !== undefined && !isObject(value.repo)) fail('repo must be an object');
  if (value.envs !== undefined && !isObject(value.envs)) fail('envs must be an object');
  if (value.file_sets !== undefined) {
    if (!Array.isArray(value.file_sets)) fail('file_sets must be an array');
    for (const set of value.file_sets as unknown[]) {
      if (!isObject(set)) fail('file_sets entries must be objects');
      const files = (set as Record<string, unknown>).files;
      if (files !== undefined && (!Array.isArray(files) || !files.every(isObject))) fail('file_sets[].files must be an array of objects');
    }
  }
  return value as BundleMeta;
}

// ---- entries ---------------------------------------------------------------------------------

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
