// The embedded store's background compaction: a write that makes a journal due returns before the
// fold is done; the fold's snapshot equals the state; and a crash in every window the fold opens —
// journal rotated but not folded, snapshot half written, snapshot installed but the old journal not
// yet deleted — loses nothing on reopening. A process killed at random moments of a busy write
// loop with folds going on keeps every acknowledged write.
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../../shared/platform/database/embedded/embedded-database.js';
import { installSnapshot, temporarySnapshotPath, writeFoldedSnapshot, type FoldJob } from '../../../shared/platform/database/embedded/snapshot-fold.js';
import { ejsonText } from '../../../shared/platform/database/embedded/ejson-text.js';

interface Doc {
  _id: string;
  n: number;
  at?: Date;
  even?: boolean;
}

const EMBEDDED_MODULE = fileURLToPath(new URL('../../../shared/platform/database/embedded/embedded-database.ts', import.meta.url));

describe('embedded store: compaction off the event loop', function () {
  this.timeout(60_000);
  let dir: string;
  const opened: EmbeddedDatabase[] = [];
  const open = async (dataDir: string, compactThresholdBytes = 1 << 30) => {
    const db = await openEmbeddedDatabase({ dataDir, compactThresholdBytes });
    opened.push(db);
    return db;
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'openmq-compaction-'));
  });
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const files = (d: string) => readdirSync(d).sort();
  const expected = (count: number, deleted: ReadonlySet<number> = new Set()) =>
    Array.from({ length: count }, (_, n) => n)
      .filter((n) => !deleted.has(n))
      .map((n) => ({ _id: `d${String(n).padStart(4, '0')}`, n, at: new Date(n), ...(n % 2 === 0 ? { even: true } : {}) }));

  async function fill(db: EmbeddedDatabase, from: number, to: number): Promise<void> {
    const c = db.collection<Doc>('t');
    for (let n = from; n < to; n++) await c.insertOne({ _id: `d${String(n).padStart(4, '0')}`, n, at: new Date(n) });
    for (let n = from; n < to; n += 2) await c.updateOne({ _id: `d${String(n).padStart(4, '0')}` }, { $set: { even: true } });
  }

  async function contents(dataDir: string): Promise<Doc[]> {
    const db = await open(dataDir);
    return db.collection<Doc>('t').find({}, { sort: { n: 1 } });
  }

  it('journals a bulk write of multi-byte text line by line, and reads it back on reopening', async () => {
    const db = await open(dir);
    const names = ['plain', 'café — naïve', '测试用例', 'emoji 🧪✅', 'line\nbreak', ''];
    await db.collection<{ _id: string; name: string }>('t').insertMany(names.map((name, i) => ({ _id: `m${i}`, name })));
    const journal = files(dir).find((f) => f.startsWith('t.') && f.includes('journal'));
    expect(journal, files(dir).join(', ')).to.be.a('string');
    const lines = readFileSync(path.join(dir, journal!), 'utf8').split('\n');
    expect(lines, 'one line per document, the last ended by a newline').to.have.length(names.length + 1);
    expect(lines.at(-1)).to.equal('');
    expect(lines.slice(0, -1).map((l) => (JSON.parse(l) as { p: { name: string } }).p.name)).to.deep.equal(names);
    await db.close();
    const reopened = await open(dir);
    expect((await reopened.collection<{ _id: string; name: string }>('t').find({}, { sort: { _id: 1 } })).map((d) => d.name)).to.deep.equal(names);
  });

  it('a write that makes the journal due returns before the fold; the fold writes the state as the next snapshot', async () => {
    const db = await open(dir, 4096);
    const c = db.collection<Doc>('t');
    let n = 0;
    while (!db.compacting) {
      await c.insertOne({ _id: `d${String(n).padStart(4, '0')}`, n, at: new Date(n), ...(n % 2 === 0 ? { even: true } : {}) });
      n++;
    }
    // The write that rotated the journal has returned; its fold is still running in the thread.
    expect(files(dir)).to.deep.equal(['LOCK', 't.0.journal']);
    await c.insertOne({ _id: `d${String(n).padStart(4, '0')}`, n, at: new Date(n), ...(n % 2 === 0 ? { even: true } : {}) });
    expect(db.compacting, 'the next write did not wait for the fold either').to.equal(true);
    await db.settled();
    expect(files(dir)).to.deep.equal(['LOCK', 't.1.journal', 't.snapshot']);
    await db.close();
    expect(await contents(dir)).to.deep.equal(expected(n + 1));
  });

  describe('a crash in each window of a fold loses nothing', () => {
    /**
     * Snapshot G and journal G, as a process that was not closed leaves them (copied aside from
     * the open database's directory, as a crash would leave it), and what it appended to journal
     * G+1 after rotating.
     */
    async function crashedWithJournal(): Promise<{ job: FoldJob; next: string; crashed: string }> {
      const db = await open(dir, 2048);
      await fill(db, 0, 60);
      await db.settled();
      await fill(db, 60, 80);
      await db.settled();
      const crashed = mkdtempSync(path.join(tmpdir(), 'openmq-crashed-'));
      cpSync(dir, crashed, { recursive: true });
      rmSync(path.join(crashed, 'LOCK'), { force: true });
      const journals = files(crashed).filter((f) => f.endsWith('.journal'));
      expect(journals, 'one journal after the last fold').to.have.length(1);
      const generation = Number(/^t\.(\d+)\.journal$/.exec(journals[0]!)![1]);
      const journal = path.join(crashed, journals[0]!);
      const job: FoldJob = {
        collection: 't',
        snapshotPath: path.join(crashed, 't.snapshot'),
        snapshotGeneration: generation,
        journalPath: journal,
        journalBytes: statSync(journal).size,
      };
      const next = path.join(crashed, `t.${generation + 1}.journal`);
      appendFileSync(next, `${ejsonText({ p: { _id: 'd0080', n: 80, at: new Date(80), even: true } })}\n${ejsonText({ d: 'd0001' })}\n`);
      return { job, next, crashed };
    }

    const after = () => [...expected(81, new Set([1]))];
    const crashedDirs: string[] = [];
    afterEach(() => {
      for (const d of crashedDirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    it('rotated, not yet folded: both journals are replayed', async () => {
      const { crashed } = await crashedWithJournal();
      crashedDirs.push(crashed);
      expect(await contents(crashed)).to.deep.equal(after());
    });

    it('snapshot half written: the temporary file is dropped and both journals replayed', async () => {
      const { job, crashed } = await crashedWithJournal();
      crashedDirs.push(crashed);
      writeFoldedSnapshot(job);
      const tmp = temporarySnapshotPath(job.snapshotPath);
      truncateSync(tmp, Math.floor(statSync(tmp).size / 2));
      expect(await contents(crashed)).to.deep.equal(after());
      expect(existsSync(tmp)).to.equal(false);
    });

    it('snapshot installed, old journal not yet deleted: the old journal is dropped, the next replayed', async () => {
      const { job, next, crashed } = await crashedWithJournal();
      crashedDirs.push(crashed);
      const result = writeFoldedSnapshot(job);
      installSnapshot(job.snapshotPath);
      expect(result.count).to.equal(80);
      expect(await contents(crashed)).to.deep.equal(after());
      // The folded journal is history; the next one is the journal of the installed snapshot.
      expect(existsSync(job.journalPath)).to.equal(false);
      expect(existsSync(next)).to.equal(true);
    });
  });

  it('folds a journal that was never written into the same documents under the next generation', async () => {
    const db = await open(dir);
    await fill(db, 0, 10);
    await db.close();
    // Closing compacted: a snapshot and no journal.
    expect(files(dir)).to.deep.equal(['t.snapshot']);
    const snapshotPath = path.join(dir, 't.snapshot');
    const generation = Number(/"generation":(\d+)/.exec(readFileSync(snapshotPath, 'utf8'))![1]);
    const result = writeFoldedSnapshot({
      collection: 't',
      snapshotPath,
      snapshotGeneration: generation,
      journalPath: path.join(dir, `t.${generation}.journal`),
      journalBytes: 0,
    });
    installSnapshot(snapshotPath);
    expect(result.count).to.equal(10);
    expect(await contents(dir)).to.deep.equal(expected(10));
  });

  it('folds a journal of several chunks from its records read back by offset, in any form a journal line may take', () => {
    // Multi-byte text puts lines across the fold's 1 MiB read chunks at every alignment; documents
    // rewritten, deleted and recreated take their last record, and a line written in another
    // form than this store's (spaced) is still read back whole.
    type Wide = { _id: string; v: number; text: string };
    const text = (id: number, v: number) => `${'é测🧪'.repeat((id * 7 + v) % 50)}#${id}.${v}`.padEnd(3000, 'x');
    const state = new Map<string, Wide>();
    const lines: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let id = 0; id < 400; id++) {
        const doc = { _id: `w${id}`, v: round, text: text(id, round) };
        state.set(doc._id, doc);
        lines.push(id % 97 === 5 ? JSON.stringify({ p: doc }, null, 1).replace(/\n/g, ' ') : ejsonText({ p: doc }));
      }
      for (let id = round; id < 400; id += 37) {
        state.delete(`w${id}`);
        lines.push(ejsonText({ d: `w${id}` }));
      }
    }
    const journalPath = path.join(dir, 't.0.journal');
    appendFileSync(journalPath, lines.map((l) => `${l}\n`).join(''));
    const journalBytes = statSync(journalPath).size;
    expect(journalBytes, 'the journal spans several read chunks').to.be.greaterThan(3 << 20);
    const snapshotPath = path.join(dir, 't.snapshot');
    const result = writeFoldedSnapshot({ collection: 't', snapshotPath, snapshotGeneration: 0, journalPath, journalBytes });
    installSnapshot(snapshotPath);
    expect(result.count).to.equal(state.size);
    const folded = readFileSync(snapshotPath, 'utf8')
      .split('\n')
      .slice(1, -1)
      .map((l) => JSON.parse(l) as Wide);
    expect(folded.sort((a, b) => a._id.localeCompare(b._id))).to.deep.equal([...state.values()].sort((a, b) => a._id.localeCompare(b._id)));
  });

  it('keeps every acknowledged write of a process killed while folds run', async () => {
    for (const killAfter of [37, 151, 420, 733]) {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-kill-'));
      try {
        const acknowledged = await writeUntilKilled(dataDir, killAfter);
        expect(acknowledged, 'writes acknowledged before the kill').to.be.at.least(killAfter);
        const db = await open(dataDir);
        const docs = await db.collection<Doc>('t').find({}, { sort: { n: 1 } });
        expect(docs.length, `after ${acknowledged} acknowledged writes`).to.be.at.least(acknowledged);
        docs.forEach((d, i) => expect(d.n).to.equal(i));
        await db.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });
});

/** A child inserting documents one by one with a tiny threshold, reporting each acknowledged write; SIGKILLed after `killAfter`. */
function writeUntilKilled(dataDir: string, killAfter: number): Promise<number> {
  const script = `
    const { openEmbeddedDatabase } = await import(process.argv[1]);
    const db = await openEmbeddedDatabase({ dataDir: process.argv[2], compactThresholdBytes: 4096 });
    const c = db.collection('t');
    for (let n = 0; n < 5000; n++) {
      await c.insertOne({ _id: 'd' + String(n).padStart(4, '0'), n, pad: 'x'.repeat(200) });
      process.stdout.write(n + 1 + '\\n');
    }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, EMBEDDED_MODULE, dataDir]);
    let acknowledged = 0;
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      const last = d.toString().trim().split('\n').at(-1);
      acknowledged = Math.max(acknowledged, Number(last));
      if (acknowledged >= killAfter && child.exitCode === null) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(acknowledged) : reject(new Error(`the writer ended without being killed: ${err}`))));
  });
}
