// Backups of the embedded store taken from its files while the service runs, and their restore.
//
// Each collection is a snapshot plus the journal of its generation and, while a fold runs, the
// next one (collection-files.ts). A copy is consistent when the journals copied are those of the
// snapshot copied: the snapshot is copied first, then its generation's journals; should a fold
// have installed a newer snapshot meanwhile (and deleted the journal the copy needed), the
// collection is copied again. A journal's line being written at that moment is torn in the copy
// and dropped when the copy is opened: the backup holds every write that had returned when its
// journal was copied. Collections are copied one after another, so a backup is consistent per
// collection, not across them (as mongodump without --oplog).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readSync, openSync, closeSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSnapshotHeader } from './snapshot-fold.js';
import { collectionBasesIn, JOURNAL_PATTERN, SNAPSHOT_SUFFIX } from './collection-files.js';

export const BACKUP_MANIFEST = 'openmq-backup.json';
const MAX_ATTEMPTS = 20;

export interface BackupManifest {
  format: 'openmq-embedded-backup';
  version: 1;
  createdAt: string;
  source: string;
  collections: number;
}

/** The generation in a snapshot's header line, or null when there is no snapshot. */
function snapshotGeneration(file: string): number | null {
  if (!existsSync(file)) return null;
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    if (!text.includes('\n')) throw new Error(`embedded store: ${file} has no complete header line in its first 64 KiB`);
    return parseSnapshotHeader(text.slice(0, text.indexOf('\n')), file).generation;
  } finally {
    closeSync(fd);
  }
}

/** Copies one collection's snapshot and the journals that go with it; false when a fold moved on meanwhile. */
function copyCollection(source: string, dest: string, base: string): boolean {
  for (const file of readdirSync(dest)) if (file === `${base}${SNAPSHOT_SUFFIX}` || JOURNAL_PATTERN.exec(file)?.[1] === base) rmSync(path.join(dest, file));
  const snapshot = path.join(source, `${base}${SNAPSHOT_SUFFIX}`);
  let generation = 0;
  if (existsSync(snapshot)) {
    try {
      copyFileSync(snapshot, path.join(dest, `${base}${SNAPSHOT_SUFFIX}`));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    generation = snapshotGeneration(path.join(dest, `${base}${SNAPSHOT_SUFFIX}`)) ?? 0;
  }
  for (const g of [generation, generation + 1]) {
    const journal = path.join(source, `${base}.${g}.journal`);
    try {
      copyFileSync(journal, path.join(dest, `${base}.${g}.journal`));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  // The copy holds what it should if the source's snapshot is still the one copied.
  return (snapshotGeneration(snapshot) ?? 0) === generation;
}

/** Copies the store in `dbDir` (open or not) into `dest`, which must not exist or be empty. */
export function backupEmbeddedStore(dbDir: string, dest: string): BackupManifest {
  if (!existsSync(dbDir)) throw new Error(`no embedded store at ${dbDir}`);
  if (existsSync(dest) && readdirSync(dest).length > 0) throw new Error(`${dest} is not empty: give a new directory for the backup`);
  mkdirSync(dest, { recursive: true });
  const bases = collectionBasesIn(dbDir);
  for (const base of bases) {
    let copied = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !copied; attempt++) copied = copyCollection(dbDir, dest, base);
    if (!copied) throw new Error(`collection ${decodeURIComponent(base)} kept changing its snapshot while it was copied; try again`);
  }
  const manifest: BackupManifest = {
    format: 'openmq-embedded-backup',
    version: 1,
    createdAt: new Date().toISOString(),
    source: path.resolve(dbDir),
    collections: bases.length,
  };
  writeFileSync(path.join(dest, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Puts a backup in place as the store of `dbDir`, which must not hold one already. */
export function restoreEmbeddedStore(backup: string, dbDir: string): BackupManifest {
  const manifestPath = path.join(backup, BACKUP_MANIFEST);
  if (!existsSync(manifestPath)) throw new Error(`${backup} is not an openmq backup (no ${BACKUP_MANIFEST})`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as BackupManifest;
  if (manifest.format !== 'openmq-embedded-backup' || manifest.version !== 1) throw new Error(`${manifestPath}: unknown backup format`);
  if (existsSync(dbDir) && readdirSync(dbDir).some((f) => f !== 'LOCK')) {
    throw new Error(`${dbDir} already holds a store: restore into a fresh data directory, or move that one aside first`);
  }
  mkdirSync(dbDir, { recursive: true });
  for (const file of readdirSync(backup)) if (file !== BACKUP_MANIFEST) copyFileSync(path.join(backup, file), path.join(dbDir, file));
  return manifest;
}
