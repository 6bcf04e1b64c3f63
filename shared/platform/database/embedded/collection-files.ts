// On-disk form of one collection: a snapshot plus append-only journals, all EJSON lines.
//
//   <name>.snapshot      header {openmqEmbedded, collection, generation, count, indexes}, then one document per line
//   <name>.<gen>.journal records since the snapshot of that generation, one per line:
//                        {p: doc} (document now is), {d: id} (deleted), {i: spec} (index)
//
// A record is committed once its line, newline included, is written; each write call appends
// all its records with one write before it resolves. Records carry resulting state, not
// operations, so replay evaluates no query and replaying a record twice is harmless.
//
// Compaction happens in two ways. In the background (rotate, then the compaction thread folds):
// the journal of the snapshot's generation G is closed and writes go on into journal G+1 while
// the thread writes snapshot G+1 from snapshot G and journal G (snapshot-fold.ts), renames it into
// place, and only then is journal G deleted. Synchronously (at start and at close, when nothing is
// served): snapshot J+1 from memory, J the newest journal, then every older journal is deleted. At
// every instant the snapshot on disk plus its generation's journal and the one after it is the
// full state; load replays both.
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BSON } from 'mongodb';
import type { Document } from 'mongodb';
import type { IndexSpec } from '../collection.js';
import { idKey } from './document-values.js';
import { ejsonText } from './ejson-text.js';
import { fsyncDirectory, parseJournalRecord, parseSnapshotHeader, temporarySnapshotPath, type FoldJob } from './snapshot-fold.js';

export type JournalRecord = { p: Document } | { d: unknown } | { i: IndexSpec };

export interface CollectionFilesOptions {
  /** fsync the journal after every write: survives power loss, not only a killed process. */
  fsync: boolean;
  /** Compact once the journal is at least this large and larger than the snapshot. */
  compactThresholdBytes: number;
}

export interface LoadedState {
  docs: Document[];
  indexes: IndexSpec[];
}

export const SNAPSHOT_SUFFIX = '.snapshot';
export const JOURNAL_PATTERN = /^(.+)\.(\d+)\.journal$/;
const CHUNK_BYTES = 1 << 20;

/** File-name-safe and reversible: everything outside [A-Za-z0-9_-] is percent-encoded. */
function encodeName(name: string): string {
  return encodeURIComponent(name).replace(/[!'()*.~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Complete lines of a file and where the last complete line ends (anything after is torn). */
function readLines(file: string): { lines: Buffer[]; validBytes: number; totalBytes: number } {
  const data = readFileSync(file);
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
    if (nl > start) lines.push(data.subarray(start, nl));
    start = nl + 1;
  }
  return { lines, validBytes: start, totalBytes: data.length };
}

/** The file-name bases (encoded names) of the collections in a directory. */
export function collectionBasesIn(dir: string): string[] {
  const bases = new Set<string>();
  for (const file of readdirSync(dir)) {
    const journal = JOURNAL_PATTERN.exec(file);
    const encoded = file.endsWith(SNAPSHOT_SUFFIX) ? file.slice(0, -SNAPSHOT_SUFFIX.length) : journal?.[1];
    if (encoded !== undefined) bases.add(encoded);
  }
  return [...bases].sort();
}

export function collectionNamesIn(dir: string): string[] {
  return collectionBasesIn(dir).map((base) => decodeURIComponent(base));
}

function readFileSize(file: string): number {
  const fd = openSync(file, 'r');
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

export class CollectionFiles {
  private readonly base: string;
  /** The snapshot's generation. */
  private generation = 0;
  /** The journal appended to: the snapshot's generation, or the next one while a fold is pending. */
  private journalGeneration = 0;
  private journalFd: number | null = null;
  private journalBytes = 0;
  private snapshotBytes = 0;

  constructor(
    private readonly dir: string,
    readonly name: string,
    private readonly options: CollectionFilesOptions,
  ) {
    this.base = encodeName(name);
  }

  private get snapshotPath(): string {
    return path.join(this.dir, `${this.base}${SNAPSHOT_SUFFIX}`);
  }

  private journalPath(generation: number): string {
    return path.join(this.dir, `${this.base}.${generation}.journal`);
  }

  /** Reads snapshot and journals, cuts a torn last journal line, and removes leftovers of an interrupted compaction. */
  load(): LoadedState {
    const tmp = temporarySnapshotPath(this.snapshotPath);
    if (existsSync(tmp)) unlinkSync(tmp);
    const docs = new Map<string, Document>();
    const indexes = new Map<string, IndexSpec>();
    if (existsSync(this.snapshotPath)) this.readSnapshot(docs, indexes);

    const journals: number[] = [];
    for (const file of readdirSync(this.dir)) {
      const match = JOURNAL_PATTERN.exec(file);
      if (!match || match[1] !== this.base) continue;
      const generation = Number(match[2]);
      // Older than the snapshot: folded into it, left by a compaction interrupted before the delete.
      if (generation < this.generation) unlinkSync(path.join(this.dir, file));
      else if (generation > this.generation + 1) {
        throw new Error(
          `embedded store: ${path.join(this.dir, file)} is newer than ${this.snapshotPath} (generation ${this.generation}) and its next journal; the data directory is inconsistent`,
        );
      } else journals.push(generation);
    }
    this.journalGeneration = this.generation;
    for (const generation of journals.sort((a, b) => a - b)) {
      this.replayJournal(this.journalPath(generation), docs, indexes);
      this.journalGeneration = generation;
    }
    return { docs: [...docs.values()], indexes: [...indexes.values()] };
  }

  private readSnapshot(docs: Map<string, Document>, indexes: Map<string, IndexSpec>): void {
    const { lines, totalBytes } = readLines(this.snapshotPath);
    if (lines.length === 0) throw new Error(`embedded store: ${this.snapshotPath} has no valid header`);
    const header = parseSnapshotHeader((lines[0] as Buffer).toString('utf8'), this.snapshotPath);
    if (header.count !== lines.length - 1) {
      throw new Error(`embedded store: ${this.snapshotPath} holds ${lines.length - 1} documents, its header says ${String(header.count)}`);
    }
    this.generation = header.generation;
    this.snapshotBytes = totalBytes;
    for (const spec of header.indexes) indexes.set(spec.name, spec);
    for (let i = 1; i < lines.length; i++) {
      const doc = BSON.EJSON.parse((lines[i] as Buffer).toString('utf8')) as Document;
      docs.set(idKey(doc._id), doc);
    }
  }

  private replayJournal(file: string, docs: Map<string, Document>, indexes: Map<string, IndexSpec>): void {
    const { lines, validBytes, totalBytes } = readLines(file);
    lines.forEach((line, i) => {
      const record = parseJournalRecord(line.toString('utf8'), file, i + 1);
      if ('p' in record) docs.set(idKey(record.p._id), record.p);
      else if ('d' in record) docs.delete(idKey(record.d));
      else indexes.set(record.i.name, record.i);
    });
    if (validBytes < totalBytes) {
      // The process died while appending this line: its write never returned, so drop it.
      const fd = openSync(file, 'r+');
      try {
        ftruncateSync(fd, validBytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    this.journalBytes = validBytes;
  }

  /** Appends one write's records with a single write call (synchronously, before the write resolves). */
  append(records: JournalRecord[]): void {
    if (records.length === 0) return;
    if (this.journalFd === null) {
      this.journalFd = openSync(this.journalPath(this.journalGeneration), 'a');
      this.journalBytes = fstatSync(this.journalFd).size;
    }
    const buffer = journalLines(records);
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(this.journalFd, buffer, offset);
    if (this.options.fsync) fsyncSync(this.journalFd);
    this.journalBytes += buffer.length;
  }

  /** The journal has grown past the threshold and the snapshot, and no fold is pending. */
  needsCompaction(): boolean {
    return !this.hasUnfoldedJournal() && this.journalBytes >= this.options.compactThresholdBytes && this.journalBytes >= this.snapshotBytes;
  }

  /** A journal closed for a fold that has not finished (in progress, or failed and to be retried). */
  hasUnfoldedJournal(): boolean {
    return this.journalGeneration > this.generation;
  }

  hasJournal(): boolean {
    return this.journalBytes > 0 || this.hasUnfoldedJournal();
  }

  /** Closes the current journal (writes go on into the next one) and answers the fold that folds it. */
  rotate(): FoldJob {
    if (this.hasUnfoldedJournal()) throw new Error(`embedded store: ${this.name} already has a journal to fold`);
    const job = this.foldJob();
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
    this.journalGeneration = this.generation + 1;
    this.journalBytes = 0;
    return job;
  }

  /** The fold of the snapshot's journal (closed by rotate). */
  foldJob(): FoldJob {
    const journal = this.journalPath(this.generation);
    return {
      collection: this.name,
      snapshotPath: this.snapshotPath,
      snapshotGeneration: this.generation,
      journalPath: journal,
      journalBytes: existsSync(journal) ? readFileSize(journal) : 0,
    };
  }

  /** The fold's snapshot is in place: its journal is history. */
  folded(bytes: number): void {
    const old = this.journalPath(this.generation);
    this.generation += 1;
    this.snapshotBytes = bytes;
    if (existsSync(old)) unlinkSync(old);
  }

  /** Writes the full state as the snapshot after the newest journal, and deletes every journal. */
  compact(docs: Iterable<Document>, indexes: IndexSpec[], count: number): void {
    const next = this.journalGeneration + 1;
    const tmp = temporarySnapshotPath(this.snapshotPath);
    const fd = openSync(tmp, 'w');
    let bytes = 0;
    try {
      const header = { openmqEmbedded: 1, collection: this.name, generation: next, count, indexes };
      let chunk = BSON.EJSON.stringify(header) + '\n';
      const flush = () => {
        const buffer = Buffer.from(chunk, 'utf8');
        let offset = 0;
        while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
        bytes += buffer.length;
        chunk = '';
      };
      let written = 0;
      for (const doc of docs) {
        chunk += ejsonText(doc) + '\n';
        written++;
        if (chunk.length >= CHUNK_BYTES) flush();
      }
      flush();
      if (written !== count) throw new Error(`embedded store: snapshot of ${this.name} wrote ${written} documents, expected ${count}`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.snapshotPath);
    fsyncDirectory(this.dir);
    // The new snapshot is the state now; the old journals are stale and removed from here on.
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
    for (let generation = this.generation; generation <= this.journalGeneration; generation++) {
      const old = this.journalPath(generation);
      if (existsSync(old)) unlinkSync(old);
    }
    this.generation = next;
    this.journalGeneration = next;
    this.journalBytes = 0;
    this.snapshotBytes = bytes;
  }

  close(): void {
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
  }
}

/**
 * The records' lines, each ended by a newline, encoded into one buffer sized up front: joining the
 * lines into one string and encoding that costs about three times as much (V8 flattens the joined
 * string first), and bulk inserts spend a large share of their time here.
 */
function journalLines(records: readonly JournalRecord[]): Buffer {
  const lines = records.map(ejsonText);
  const lengths = lines.map((line) => Buffer.byteLength(line, 'utf8'));
  const buffer = Buffer.allocUnsafe(lengths.reduce((sum, n) => sum + n + 1, 0));
  let offset = 0;
  lines.forEach((line, i) => {
    offset += buffer.write(line, offset, lengths[i], 'utf8');
    buffer[offset++] = 0x0a;
  });
  return buffer;
}
