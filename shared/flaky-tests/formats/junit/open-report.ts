// Report bytes as uploaded → report bytes as written by the test runner. Uploaders gzip large
// reports (and some CI artifact stores hand out .xml.gz), so gzip is recognised by its magic bytes
// rather than by a file name or header that may lie, and decompressed as a stream.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ByteSource } from './types.js';

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** Decompressed reports larger than this are refused (a gzip bomb is a few KB). */
export const DEFAULT_MAX_REPORT_BYTES = 1024 * 1024 * 1024;

export class ReportTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`report exceeds ${limit} bytes after decompression`);
    this.name = 'ReportTooLargeError';
  }
}

export interface OpenReportOptions {
  /** Cap on (decompressed) bytes; the stream fails with ReportTooLargeError beyond it. */
  maxBytes?: number;
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** True when the bytes start like a gzip member. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1;
}

/**
 * Yields the report's bytes, gunzipping transparently when the input starts with the gzip magic
 * (multi-member gzip included). Plain input passes through untouched.
 */
export async function* openReport(source: ByteSource, options: OpenReportOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_REPORT_BYTES;
  const iterator = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headLength = 0;
  let done = false;
  // Two bytes decide; sources may deliver them in separate chunks.
  while (headLength < 2) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const b = toBuffer(next.value);
    head.push(b);
    headLength += b.length;
  }
  const first = Buffer.concat(head);
  const rest = async function* (): AsyncGenerator<Buffer> {
    if (first.length > 0) yield first;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield toBuffer(next.value);
    }
  };

  let total = 0;
  const count = (b: Buffer): Buffer => {
    total += b.length;
    if (total > maxBytes) throw new ReportTooLargeError(maxBytes);
    return b;
  };

  if (!isGzip(first)) {
    try {
      for await (const b of rest()) yield count(b);
    } finally {
      await iterator.return?.();
    }
    return;
  }

  const gunzip = createGunzip();
  const feeding = pipeline(Readable.from(rest()), gunzip).catch((err: unknown) => {
    gunzip.destroy(err as Error);
  });
  try {
    for await (const out of gunzip as AsyncIterable<Buffer>) yield count(out);
  } finally {
    gunzip.destroy();
    await feeding;
    await iterator.return?.();
  }
}
