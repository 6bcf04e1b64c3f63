// On-disk form of one collection: a snapshot plus an append-only journal, both EJSON lines.
//
//   <name>.snapshot      header {openmqEmbedded, collection, generation, count, indexes}, then one document per line
//   <name>.<gen>.journal records since the snapshot of that generation, one per line:
//                        {p: doc} (document now is), {d: id} (deleted), {i: spec} (index)
//
// A record is committed once its line, newline included, is written; each write call appends
// all its records with one write before it resolves. Records carry resulting state, not
// operations, so replay evaluates no query and replaying a record twice is harmless.
// Compaction writes the next generation's snapshot to a temporary file, fsyncs it, renames it
// into place, and only then starts the next journal and deletes the old one: at every instant
// the snapshot on disk plus the journal of its generation is the full state.
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BSON } from 'mongodb';
import type { Document } from 'mongodb';
import type { IndexSpec } from '../collection.js';
import { idKey, isPlainObject } from './document-values.js';
import { ejsonText } from './ejson-text.js';

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

const SNAPSHOT_SUFFIX = '.snapshot';
const JOURNAL_PATTERN = /^(.+)\.(\d+)\.journal$/;
const CHUNK_BYTES = 1 << 20;

/** File-name-safe and reversible: everything outside [A-Za-z0-9_-] is percent-encoded. */
function encodeName(name: string): string {
  return encodeURIComponent(name).replace(/[!'()*.~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function fsyncDirectory(dir: string): void {
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

export function collectionNamesIn(dir: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(dir)) {
    const journal = JOURNAL_PATTERN.exec(file);
    const encoded = file.endsWith(SNAPSHOT_SUFFIX) ? file.slice(0, -SNAPSHOT_SUFFIX.length) : journal?.[1];
    if (encoded !== undefined) names.add(decodeURIComponent(encoded));
  }
  return [...names];
}

export class CollectionFiles {
  private readonly base: string;
  private generation = 0;
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

  /** Reads snapshot and journal, cuts a torn last journal line, and removes leftovers of an interrupted compaction. */
  load(): LoadedState {
    const tmp = `${this.snapshotPath}.tmp`;
    if (existsSync(tmp)) unlinkSync(tmp);
    const docs = new Map<string, Document>();
    const indexes = new Map<string, IndexSpec>();
    if (existsSync(this.snapshotPath)) this.readSnapshot(docs, indexes);

    for (const file of readdirSync(this.dir)) {
      const match = JOURNAL_PATTERN.exec(file);
      if (!match || match[1] !== this.base) continue;
      const generation = Number(match[2]);
      if (generation < this.generation) unlinkSync(path.join(this.dir, file));
      else if (generation > this.generation) {
        throw new Error(
          `embedded store: ${path.join(this.dir, file)} is newer than ${this.snapshotPath} (generation ${this.generation}); the data directory is inconsistent`,
        );
      }
    }
    const journal = this.journalPath(this.generation);
    if (existsSync(journal)) this.replayJournal(journal, docs, indexes);
    return { docs: [...docs.values()], indexes: [...indexes.values()] };
  }

  private readSnapshot(docs: Map<string, Document>, indexes: Map<string, IndexSpec>): void {
    const { lines, totalBytes } = readLines(this.snapshotPath);
    const header: unknown = lines.length > 0 ? BSON.EJSON.parse((lines[0] as Buffer).toString('utf8')) : null;
    if (!isPlainObject(header) || header.openmqEmbedded !== 1 || typeof header.generation !== 'number' || !Array.isArray(header.indexes)) {
      throw new Error(`embedded store: ${this.snapshotPath} has no valid header`);
    }
    if (header.count !== lines.length - 1) {
      throw new Error(`embedded store: ${this.snapshotPath} holds ${lines.length - 1} documents, its header says ${String(header.count)}`);
    }
    this.generation = header.generation;
    this.snapshotBytes = totalBytes;
    for (const spec of header.indexes as IndexSpec[]) indexes.set(spec.name, spec);
    for (let i = 1; i < lines.length; i++) {
      const doc = BSON.EJSON.parse((lines[i] as Buffer).toString('utf8')) as Document;
      docs.set(idKey(doc._id), doc);
    }
  }

  private replayJournal(file: string, docs: Map<string, Document>, indexes: Map<string, IndexSpec>): void {
    const { lines, validBytes, totalBytes } = readLines(file);
    lines.forEach((line, i) => {
      let record: unknown;
      try {
        record = BSON.EJSON.parse(line.toString('utf8'));
      } catch (err) {
        throw new Error(`embedded store: ${file} line ${i + 1} is corrupt (${(err as Error).message})`, { cause: err });
      }
      if (!isPlainObject(record)) throw new Error(`embedded store: ${file} line ${i + 1} is not a record`);
      if ('p' in record && isPlainObject(record.p)) docs.set(idKey(record.p._id), record.p);
      else if ('d' in record) docs.delete(idKey(record.d));
      else if ('i' in record && isPlainObject(record.i)) indexes.set(String(record.i.name), record.i as unknown as IndexSpec);
      else throw new Error(`embedded store: ${file} line ${i + 1} is not a known record`);
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
      this.journalFd = openSync(this.journalPath(this.generation), 'a');
      this.journalBytes = fstatSync(this.journalFd).size;
    }
    const text = records.map(ejsonText).join('\n') + '\n';
    const buffer = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(this.journalFd, buffer, offset);
    if (this.options.fsync) fsyncSync(this.journalFd);
    this.journalBytes += buffer.length;
  }

  needsCompaction(): boolean {
    return this.journalBytes >= this.options.compactThresholdBytes && this.journalBytes >= this.snapshotBytes;
  }

  hasJournal(): boolean {
    return this.journalBytes > 0;
  }

  /** Writes the full state as the next generation's snapshot and starts an empty journal. */
  compact(docs: Iterable<Document>, indexes: IndexSpec[], count: number): void {
    const next = this.generation + 1;
    const tmp = `${this.snapshotPath}.tmp`;
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
    // The new snapshot is the state now; the old journal is stale and removed from here on.
    const old = this.journalPath(this.generation);
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
    this.generation = next;
    this.journalBytes = 0;
    this.snapshotBytes = bytes;
    if (existsSync(old)) unlinkSync(old);
  }

  close(): void {
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
  }
}
