// Folds a closed journal into the next snapshot, from the files alone: what the compaction thread
// runs (snapshot-worker.ts) while the process keeps serving and appending to the next journal.
//
// Both files are streamed line by line, so memory holds where in the journal each document's
// latest record lies (its offset and length, not its text: a journal that rewrote 100,000 large
// documents would otherwise hold them all in this thread) and one chunk of each file, never the
// collection. A snapshot line whose document the journal does not touch is copied as it is; the
// others take the journal's last record, read back from the file, or are dropped when it deleted
// them; documents the journal created follow. The result is written to a
// temporary file and fsynced; installing it is a rename (then an fsync of the directory), so at
// every instant the snapshot on disk plus the journals of its generation and later is the state.
import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BSON } from 'mongodb';
import type { Document } from 'mongodb';
import type { IndexSpec } from '../collection.js';
import { idKey, isPlainObject } from './document-values.js';
import { ejsonText } from './ejson-text.js';

export interface FoldJob {
  collection: string;
  /** The snapshot to start from (may not exist yet: an empty collection of generation 0). */
  snapshotPath: string;
  snapshotGeneration: number;
  /** The journal of that generation, closed: only its first `journalBytes` are read. */
  journalPath: string;
  journalBytes: number;
}

export interface FoldResult {
  /** The new snapshot's size and document count. */
  bytes: number;
  count: number;
}

const CHUNK_BYTES = 1 << 20;

/** Where a line lies in its file, in bytes (its newline excluded). */
export interface LineSpan {
  offset: number;
  length: number;
}

/** Calls `fn` with each complete line of the first `limit` bytes of a file (1-based line numbers). */
export function forEachLine(file: string, limit: number, fn: (line: string, lineNumber: number, span: LineSpan) => void): void {
  // Nothing to read (a fold of a journal that was never written): the file may not exist.
  if (limit <= 0) return;
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let rest = Buffer.alloc(0);
    let position = 0;
    let lineNumber = 0;
    while (position < limit) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, limit - position), position);
      if (read === 0) break;
      // The file offset of data[0]: the unfinished line carried over starts before this chunk.
      let offset = position - rest.length;
      position += read;
      let data = rest.length > 0 ? Buffer.concat([rest, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
        if (nl > 0) fn(data.subarray(0, nl).toString('utf8'), ++lineNumber, { offset, length: nl });
        data = data.subarray(nl + 1);
        offset += nl + 1;
      }
      rest = Buffer.from(data);
    }
  } finally {
    closeSync(fd);
  }
}

/** The snapshot's header as this store writes it. */
export function parseSnapshotHeader(line: string, file: string): { generation: number; count: number; indexes: IndexSpec[] } {
  const header: unknown = BSON.EJSON.parse(line);
  if (!isPlainObject(header) || header.openmqEmbedded !== 1 || typeof header.generation !== 'number' || !Array.isArray(header.indexes)) {
    throw new Error(`embedded store: ${file} has no valid header`);
  }
  return { generation: header.generation, count: Number(header.count), indexes: header.indexes as IndexSpec[] };
}

/** One journal line, read: a document's state, a deletion, or an index. */
export function parseJournalRecord(line: string, file: string, lineNumber: number): { p: Document } | { d: unknown } | { i: IndexSpec } {
  let record: unknown;
  try {
    record = BSON.EJSON.parse(line);
  } catch (err) {
    throw new Error(`embedded store: ${file} line ${lineNumber} is corrupt (${(err as Error).message})`, { cause: err });
  }
  if (!isPlainObject(record)) throw new Error(`embedded store: ${file} line ${lineNumber} is not a record`);
  if ('p' in record && isPlainObject(record.p)) return { p: record.p };
  if ('d' in record) return { d: record.d };
  if ('i' in record && isPlainObject(record.i)) return { i: record.i as unknown as IndexSpec };
  throw new Error(`embedded store: ${file} line ${lineNumber} is not a known record`);
}

const PUT_PREFIX = Buffer.from('{"p":');
const CLOSE_BRACE = 0x7d;

/** The text of a put record's document: sliced from the line when it has this store's form. */
function documentText(line: Buffer): Buffer | string {
  if (line.subarray(0, PUT_PREFIX.length).equals(PUT_PREFIX) && line.at(-1) === CLOSE_BRACE) return line.subarray(PUT_PREFIX.length, -1);
  return ejsonText((BSON.EJSON.parse(line.toString('utf8')) as { p: Document }).p);
}

/** Reads one line of an open file back by its span. */
function readSpan(fd: number, span: LineSpan): Buffer {
  const line = Buffer.allocUnsafe(span.length);
  let read = 0;
  while (read < span.length) {
    const n = readSync(fd, line, read, span.length - read, span.offset + read);
    if (n === 0) throw new Error('embedded store: a journal ended before a record the fold had read');
    read += n;
  }
  return line;
}

export const temporarySnapshotPath = (snapshotPath: string) => `${snapshotPath}.tmp`;

/** Writes the folded snapshot of generation `snapshotGeneration + 1` to the temporary path, fsynced. */
export function writeFoldedSnapshot(job: FoldJob): FoldResult {
  // The journal's last word on each document: where its latest record lies, or null when deleted.
  const latest = new Map<string, LineSpan | null>();
  const indexes = new Map<string, IndexSpec>();
  forEachLine(job.journalPath, job.journalBytes, (line, n, span) => {
    const record = parseJournalRecord(line, job.journalPath, n);
    if ('p' in record) latest.set(idKey(record.p._id), span);
    else if ('d' in record) latest.set(idKey(record.d), null);
    else indexes.set(record.i.name, record.i);
  });

  const tmp = temporarySnapshotPath(job.snapshotPath);
  let headerIndexes: IndexSpec[] = [];
  const headerText = (count: number) => {
    const all = new Map(headerIndexes.map((spec) => [spec.name, spec]));
    for (const [name, spec] of indexes) all.set(name, spec);
    return BSON.EJSON.stringify({ openmqEmbedded: 1, collection: job.collection, generation: job.snapshotGeneration + 1, count, indexes: [...all.values()] });
  };
  const fd = openSync(tmp, 'w');
  let journal: number | null = null;
  const journalText = (span: LineSpan) => {
    journal ??= openSync(job.journalPath, 'r');
    return documentText(readSpan(journal, span));
  };
  let count = 0;
  let bytes = 0;
  let chunk: Buffer[] = [];
  let chunkBytes = 0;
  const NEWLINE = Buffer.from('\n');
  const flush = () => {
    const buffer = Buffer.concat(chunk, chunkBytes);
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset, bytes + offset);
    bytes += buffer.length;
    chunk = [];
    chunkBytes = 0;
  };
  const add = (text: Buffer | string) => {
    const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    chunk.push(buffer);
    chunkBytes += buffer.length;
  };
  const emit = (text: Buffer | string) => {
    add(text);
    add(NEWLINE);
    count++;
    if (chunkBytes >= CHUNK_BYTES) flush();
  };
  try {
    let reserved = 0;
    if (existsSync(job.snapshotPath)) {
      forEachLine(job.snapshotPath, Number.MAX_SAFE_INTEGER, (line, n) => {
        if (n === 1) {
          const header = parseSnapshotHeader(line, job.snapshotPath);
          if (header.generation !== job.snapshotGeneration) {
            throw new Error(`embedded store: ${job.snapshotPath} is generation ${header.generation}, the fold expected ${job.snapshotGeneration}`);
          }
          headerIndexes = header.indexes;
          reserved = reserveHeader();
          return;
        }
        const id = idKey((BSON.EJSON.parse(line) as Document)._id);
        const replaced = latest.get(id);
        if (replaced === undefined) emit(line);
        else {
          if (replaced !== null) emit(journalText(replaced));
          latest.delete(id);
        }
      });
    }
    if (reserved === 0) reserved = reserveHeader();
    for (const span of latest.values()) if (span !== null) emit(journalText(span));
    flush();
    // The header holds the count, known only now: it is written over the room left for it (JSON
    // allows the spaces that pad it to the same length).
    const header = Buffer.from(headerText(count).padEnd(reserved - 1, ' '), 'utf8');
    if (header.length !== reserved - 1) throw new Error(`embedded store: the header of ${tmp} outgrew its room`);
    writeSync(fd, header, 0, header.length, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
    if (journal !== null) closeSync(journal);
  }
  return { bytes, count };

  /** Writes the header line with room for any count; answers its length, newline included. */
  function reserveHeader(): number {
    add(`${headerText(0)}${' '.repeat(20)}\n`);
    const length = chunkBytes;
    flush();
    return length;
  }
}

/** Puts the temporary snapshot in place (atomically) and makes the rename durable. */
export function installSnapshot(snapshotPath: string): void {
  renameSync(temporarySnapshotPath(snapshotPath), snapshotPath);
  fsyncDirectory(path.dirname(snapshotPath));
}

export function fsyncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  }
}
