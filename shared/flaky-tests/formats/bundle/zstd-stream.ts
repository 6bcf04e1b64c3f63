// Streaming zstd decompression for untrusted input (RFC 8878). Everything streams: zstd is decoded
// block by block (fzstd's streaming Decompress), so memory stays bounded whatever the input's
// size. A small frame walker checks every zstd frame header *before* the decoder sees it: the
// decoder allocates the frame's declared window up front, and bundles may claim up to 2 GiB.
// Output bytes and decoding time are capped, so a small bomb cannot hold a worker for long.
import { setImmediate } from 'node:timers/promises';
import { Decompress } from 'fzstd';
import { BundleError } from './bundle-error.js';

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
  /** Time spent decoding (not waiting for input or for the consumer). Default 60 s. */
  maxDecodeMillis?: number;
}

export const ZSTD_DEFAULTS: Required<ZstdLimits> = {
  maxCompressedBytes: 256 * 1024 * 1024,
  maxUncompressedBytes: 2 * 1024 * 1024 * 1024,
  maxWindowBytes: 64 * 1024 * 1024,
  maxDecodeMillis: 60_000,
};

/**
 * Streams zstd-compressed bytes out decompressed. Each push to the decoder ends at a block
 * boundary, so one step produces at most one block (≤ 128 KiB) and back-pressure holds.
 */
export async function* decompressZstd(source: AsyncIterable<Uint8Array | string>, limits: ZstdLimits = {}): AsyncGenerator<Buffer, void, undefined> {
  const l = { ...ZSTD_DEFAULTS, ...limits };
  const maxIn = l.maxCompressedBytes;
  const maxOut = l.maxUncompressedBytes;
  const walker = new ZstdFrameWalker(l.maxWindowBytes);
  let decodeMillis = 0;
  const out: Buffer[] = [];
  let produced = 0;
  const decoder = new Decompress((data) => {
    if (data.length === 0) return;
    produced += data.length;
    if (produced > maxOut) throw new BundleError('too-large', `bundle exceeds ${maxOut} bytes after decompression`);
    out.push(Buffer.from(data)); // copy: the decoder may reuse its buffers
  });
  const push = (bytes: Uint8Array, final: boolean): void => {
    const started = performance.now();
    try {
      decoder.push(bytes, final);
    } catch (err) {
      throw wrapZstdError(err);
    }
    decodeMillis += performance.now() - started;
    if (decodeMillis > l.maxDecodeMillis) throw new BundleError('too-slow', `decompressing the bundle took more than ${l.maxDecodeMillis} ms`);
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
      // A macrotask turn per block: the all-in-one process decodes on the API's event loop, and a
      // few bytes of input can expand to gigabytes.
      await setImmediate();
    }
  }
  walker.finish();
  push(new Uint8Array(0), true);
  while (out.length > 0) yield out.shift()!;
}
