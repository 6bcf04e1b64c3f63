// Backups of the embedded store taken while it is written and its journals are folded by the
// compaction thread: every backup opens, and holds a consistent prefix of the writes.
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openEmbeddedDatabase } from '../../../shared/platform/database/embedded/embedded-database.js';
import { backupEmbeddedStore, restoreEmbeddedStore } from '../../../shared/platform/database/embedded/embedded-backup.js';

describe('embedded store: backup while it runs', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'openmq-backup-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies a consistent prefix of the writes while folds replace snapshots, and restores it', async () => {
    const db = await openEmbeddedDatabase({ dataDir: path.join(dir, 'live'), compactThresholdBytes: 2048 });
    const c = db.collection<{ _id: string; n: number; pad: string }>('t');
    const backups: string[] = [];
    for (let n = 0; n < 3000; n++) {
      await c.insertOne({ _id: `d${String(n).padStart(5, '0')}`, n, pad: 'x'.repeat(100) });
      if (n % 250 === 249) {
        const dest = path.join(dir, `backup-${n}`);
        backupEmbeddedStore(path.join(dir, 'live'), dest);
        backups.push(dest);
      }
      // Let the compaction thread's folds land between writes now and then.
      if (n % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await db.close();
    expect(backups).to.have.length(12);
    for (const [i, backup] of backups.entries()) {
      const restored = path.join(dir, `restored-${i}`);
      restoreEmbeddedStore(backup, restored);
      const copy = await openEmbeddedDatabase({ dataDir: restored });
      const ns = (await copy.collection<{ _id: string; n: number }>('t').find({}, { sort: { n: 1 } })).map((d) => d.n);
      await copy.close();
      // Every write that had returned before the backup: the first (i + 1) × 250 documents, in order.
      expect(ns.length, backup).to.equal((i + 1) * 250);
      ns.forEach((n, k) => expect(n).to.equal(k));
    }
  });

  it('refuses to write into a directory that is not empty, and to restore over a store', () => {
    const live = path.join(dir, 'live');
    mkdirSync(live);
    const taken = path.join(dir, 'taken');
    mkdirSync(taken);
    writeFileSync(path.join(taken, 'x'), 'x');
    expect(() => backupEmbeddedStore(live, taken)).to.throw(/is not empty/);
    const backup = path.join(dir, 'backup');
    backupEmbeddedStore(live, backup);
    writeFileSync(path.join(live, 't.snapshot'), '');
    expect(() => restoreEmbeddedStore(backup, live)).to.throw(/already holds a store/);
    expect(() => restoreEmbeddedStore(live, path.join(dir, 'fresh'))).to.throw(/is not an openmq backup/);
  });
});
