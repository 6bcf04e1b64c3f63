// multipart/form-data as an async sequence of parts, streamed with busboy: file parts are handed
// out as streams to be read (or drained) before the next part is asked for, so a report of any
// size passes through without being buffered. The whole request is capped at `maxBytes`.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError, invalid } from '../../../shared/platform/errors.js';

export type MultipartPart =
  | { kind: 'field'; name: string; value: string; truncated: boolean }
  | { kind: 'file'; name: string; filename: string | null; stream: Readable & { truncated?: boolean } };

export interface MultipartLimits {
  maxBytes: number;
  maxFiles: number;
  maxFieldBytes: number;
}

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*;/i.test(contentType ?? '');
}

const ignore = (): void => undefined;

export async function* readMultipart(req: IncomingMessage, limits: MultipartLimits): AsyncGenerator<MultipartPart, void, undefined> {
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      limits: { fileSize: limits.maxBytes, files: limits.maxFiles, fields: 20, fieldSize: limits.maxFieldBytes, parts: limits.maxFiles + 20 },
    });
  } catch (err) {
    throw invalid('malformed_multipart', `the request is not valid multipart/form-data: ${(err as Error).message}`);
  }
  const queue: MultipartPart[] = [];
  let failure: Error | null = null;
  let closed = false;
  let wake: (() => void) | null = null;
  let current: Readable | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const fail = (err: Error) => {
    if (!failure) failure = err;
    current?.destroy(err);
    notify();
  };

  bb.on('file', (name, stream, info) => {
    // Destroying busboy mid-part (a refusal) errors the part's stream with "Unexpected end of
    // file"; a reader that already gave up has no listener left, and an unhandled stream error
    // would end the process.
    stream.on('error', ignore);
    current = stream;
    stream.on('limit', () => fail(new AppError('too_large', 'upload_too_large', `the upload is larger than ${limits.maxBytes} bytes`)));
    queue.push({ kind: 'file', name, filename: info.filename ?? null, stream });
    notify();
  });
  bb.on('field', (name, value, info) => {
    queue.push({ kind: 'field', name, value, truncated: info.valueTruncated });
    notify();
  });
  bb.on('filesLimit', () => fail(invalid('too_many_parts', `at most ${limits.maxFiles} files per upload`)));
  bb.on('partsLimit', () => fail(invalid('too_many_parts', 'too many parts in the upload')));
  bb.on('fieldsLimit', () => fail(invalid('too_many_parts', 'too many fields in the upload')));
  bb.on('error', (err: unknown) => fail(invalid('malformed_multipart', `the request is not valid multipart/form-data: ${(err as Error).message}`)));
  bb.on('close', () => {
    closed = true;
    notify();
  });

  let total = 0;
  const onData = (chunk: Buffer) => {
    total += chunk.length;
    if (total > limits.maxBytes && !failure) {
      req.unpipe(bb);
      fail(new AppError('too_large', 'upload_too_large', `the upload is larger than ${limits.maxBytes} bytes`));
    }
  };
  req.on('data', onData);
  req.pipe(bb);

  try {
    for (;;) {
      if (failure) throw failure;
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (closed) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    req.off('data', onData);
    req.unpipe(bb);
    for (const part of queue) if (part.kind === 'file') part.stream.resume();
    if (!closed) bb.destroy();
    // Whatever the client still sends is read and dropped, so it receives our answer.
    req.resume();
  }
}

/** Bytes of a refused body read and dropped before answering, so the client reads the answer. */
const MAX_DRAIN_BYTES = 1024 * 1024;
const MAX_DRAIN_MS = 2000;

/**
 * Settles a request whose body was refused before it was read to the end. A small rest is read
 * and dropped, so the client (still sending) gets the 4xx rather than a reset; a large or slow
 * one is not worth reading: the answer goes out with `Connection: close`. Resolves with whether
 * the connection must be closed. Never rejects.
 */
export function drainRefusedBody(req: IncomingMessage): Promise<boolean> {
  if (req.complete || req.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let drained = 0;
    const finish = (close: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onEnd);
      resolve(close);
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > MAX_DRAIN_BYTES) finish(true);
    };
    const onEnd = () => finish(false);
    const onError = () => finish(true);
    const timer = setTimeout(() => finish(true), MAX_DRAIN_MS);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onEnd);
    req.on('error', onError);
    req.resume();
  });
}
