// The Database / DocCollection contract, run against every database (see forEachDatabase): the
// embedded database always, MongoDB when MONGO_URL is set. A test here states MongoDB's
// behaviour; the embedded database passes it or is wrong. Embedded-only concerns (persistence,
// crash recovery, the data-directory lock, the TTL sweep) follow at the end.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { DUPLICATE_KEY_CODE, isDuplicateKeyError, type DocCollection, type IndexSpec, type StoredDoc } from '../../shared/platform/database/collection.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../shared/platform/database/embedded/embedded-database.js';
import { openDatabase } from '../../shared/platform/database/open-database.js';
import { forEachDatabase } from '../helpers/databases.js';
import { rejectionOf as rejectionOfAny } from '../helpers/rejection.js';
import { waitFor } from '../../scripts/lib/wait.js';

type Doc = StoredDoc;

interface ServerLikeError extends Error {
  code?: unknown;
  insertedCount?: unknown;
}

const rejectionOf = (promise: Promise<unknown>) => rejectionOfAny<ServerLikeError>(promise);

async function expectDuplicateKey(promise: Promise<unknown>, indexName?: string): Promise<ServerLikeError> {
  const err = await rejectionOf(promise);
  expect(isDuplicateKeyError(err), `expected a duplicate-key error, got ${err.message}`).to.equal(true);
  expect(err.code).to.equal(DUPLICATE_KEY_CODE);
  expect(err.message).to.contain('E11000');
  if (indexName) expect(err.message).to.contain(indexName);
  return err;
}

const ids = (docs: Doc[]): string[] => docs.map((d) => d._id);
const sortedIds = (docs: Doc[]): string[] => ids(docs).sort();

function index(spec: Omit<IndexSpec, 'comment'>): IndexSpec {
  return { comment: 'contract test', ...spec };
}

forEachDatabase('database contract', (getDb) => {
  const col = (name = 'items'): DocCollection<Doc> => getDb().collection<Doc>(name);

  describe('insert and read', () => {
    it('answers ping and names its kind', async () => {
      await getDb().ping();
      expect(['embedded', 'mongodb']).to.include(getDb().kind);
      expect(col('named').name).to.equal('named');
    });

    it('stores a copy of the inserted document and hands out copies', async () => {
      const input = { _id: 'a', tags: ['x'], nested: { n: 1 } };
      await col().insertOne(input);
      input.tags.push('y');
      input.nested.n = 2;
      const got = await col().findOne({ _id: 'a' });
      expect(got).to.deep.equal({ _id: 'a', tags: ['x'], nested: { n: 1 } });
      (got?.tags as string[]).push('z');
      expect((await col().findOne({ _id: 'a' }))?.tags).to.deep.equal(['x']);
    });

    it('answers a read-only find with the same documents, projected or not, and an update after it leaves them as they were', async () => {
      await col().insertMany([
        { _id: 'a', tags: ['x'], at: new Date(5), nested: { n: 1 } },
        { _id: 'b', tags: ['y'], nested: { n: 2 } },
      ]);
      const plain = await col().find({}, { sort: { _id: 1 } });
      const shared = await col().find({}, { sort: { _id: 1 }, readOnly: true });
      expect(shared).to.deep.equal(plain);
      expect(await col().find({ tags: 'x' }, { projection: { tags: 1 }, readOnly: true })).to.deep.equal([{ _id: 'a', tags: ['x'] }]);
      expect(await col().find({}, { projection: { 'nested.n': 1, _id: 0 }, sort: { _id: 1 }, readOnly: true })).to.deep.equal([
        { nested: { n: 1 } },
        { nested: { n: 2 } },
      ]);
      await col().updateOne({ _id: 'a' }, { $push: { tags: 'z' }, $set: { 'nested.n': 9 } });
      expect(shared[0], 'a stored document is replaced, never changed in place').to.deep.equal({ _id: 'a', tags: ['x'], at: new Date(5), nested: { n: 1 } });
      expect(await col().findOne({ _id: 'a' })).to.deep.include({ tags: ['x', 'z'], nested: { n: 9 } });
    });

    it('returns null and [] when nothing matches', async () => {
      expect(await col().findOne({ _id: 'missing' })).to.equal(null);
      expect(await col().find({ kind: 'none' })).to.deep.equal([]);
    });

    it('round-trips Dates, also inside arrays, and queries by them', async () => {
      const at = new Date('2024-05-01T10:00:00.123Z');
      await col().insertOne({ _id: 'd', at, list: [{ at: new Date(0) }] });
      const got = await col().findOne({ _id: 'd' });
      expect(got?.at).to.be.instanceOf(Date);
      expect((got?.at as Date).getTime()).to.equal(at.getTime());
      expect((got?.list as Array<{ at: Date }>)[0]?.at).to.be.instanceOf(Date);
      expect(ids(await col().find({ at: { $gte: new Date('2024-01-01') } }))).to.deep.equal(['d']);
      expect(ids(await col().find({ at: { $lt: new Date('2024-01-01') } }))).to.deep.equal([]);
      expect(ids(await col().find({ 'list.at': new Date(0) }))).to.deep.equal(['d']);
      expect(ids(await col().find({ at }))).to.deep.equal(['d']);
    });

    it('stores an undefined field as null, as the driver serialises it', async () => {
      await col().insertOne({ _id: 'u', a: undefined });
      expect(await col().findOne({ _id: 'u' })).to.deep.equal({ _id: 'u', a: null });
    });

    it('rejects a second document with the same _id and keeps the first', async () => {
      await col().insertOne({ _id: 'x', v: 1 });
      await expectDuplicateKey(col().insertOne({ _id: 'x', v: 2 }), '_id_');
      expect(await col().find({})).to.deep.equal([{ _id: 'x', v: 1 }]);
    });
  });

  describe('filters', () => {
    const seed = async () => {
      await col().insertMany([
        {
          _id: '1',
          kind: 'a',
          n: 1,
          tags: ['red', 'blue'],
          meta: { owner: 'ann', level: 2 },
          runs: [
            { status: 'passed', ms: 10 },
            { status: 'failed', ms: 50 },
          ],
          at: new Date('2026-01-01T00:00:00Z'),
          scores: [1, 9],
        },
        {
          _id: '2',
          kind: 'b',
          n: 2,
          tags: ['green'],
          meta: { owner: 'bob', level: 1 },
          runs: [{ status: 'passed', ms: 70 }],
          at: new Date('2026-02-01T00:00:00Z'),
        },
        { _id: '3', kind: 'a', n: 3, tags: [], meta: { owner: 'ann' }, runs: [], optional: null, at: 3 },
        { _id: '4', kind: 'c', n: 4, optional: 'set' },
      ]);
    };
    const table: Array<[string, Record<string, unknown>, string[]]> = [
      ['$in', { kind: { $in: ['a', 'c'] } }, ['1', '3', '4']],
      ['$in on an array field', { tags: { $in: ['blue', 'green'] } }, ['1', '2']],
      ['$in with null matches null and missing', { optional: { $in: [null] } }, ['1', '2', '3']],
      ['$in does not convert types', { n: { $in: ['1', 2] } }, ['2']],
      ['a range of Dates', { at: { $gte: new Date('2026-01-15T00:00:00Z'), $lt: new Date('2026-03-01T00:00:00Z') } }, ['2']],
      ['a range of Dates skips numbers', { at: { $gte: new Date(0) } }, ['1', '2']],
      ['a range of numbers skips Dates', { at: { $gte: 0 } }, ['3']],
      ['a range over an array field: each bound by some element', { scores: { $gt: 5, $lt: 8 } }, ['1']],
      ['$or', { $or: [{ kind: 'b' }, { n: { $gte: 4 } }] }, ['2', '4']],
      ['$and', { $and: [{ kind: 'a' }, { tags: 'red' }] }, ['1']],
      ['equality and range together', { kind: 'a', n: { $gt: 1 } }, ['3']],
      ['$elemMatch on one element', { runs: { $elemMatch: { status: 'failed', ms: { $gt: 20 } } } }, ['1']],
      ['$elemMatch not across elements', { runs: { $elemMatch: { status: 'passed', ms: { $gt: 60 } } } }, ['2']],
      ['$exists true', { optional: { $exists: true } }, ['3', '4']],
      ['$exists false', { optional: { $exists: false } }, ['1', '2']],
      ['null matches null and missing', { optional: null }, ['1', '2', '3']],
      ['dot path into a document', { 'meta.owner': 'ann' }, ['1', '3']],
      ['dot path missing', { 'meta.level': { $exists: false } }, ['3', '4']],
      ['dot path through an array of documents', { 'runs.status': 'failed' }, ['1']],
      ['scalar equality matches an array element', { tags: 'green' }, ['2']],
      ['several equalities together', { kind: 'a', n: 3 }, ['3']],
      ['equality does not convert types', { n: '1' }, []],
      ['null and an equality together', { kind: 'a', optional: null }, ['1', '3']],
      ['$size', { tags: { $size: 0 } }, ['3']],
      ['$ne', { kind: { $ne: 'a' } }, ['2', '4']],
      ['$nin', { kind: { $nin: ['a', 'b'] } }, ['4']],
      ['$regex', { 'meta.owner': { $regex: '^b' } }, ['2']],
      ['_id $in', { _id: { $in: ['2', '4', 'nope'] } }, ['2', '4']],
      ['$eq on an indexed field', { kind: { $eq: 'b' } }, ['2']],
      ['empty filter', {}, ['1', '2', '3', '4']],
    ];

    for (const withIndexes of [false, true]) {
      describe(withIndexes ? 'with indexes on the filtered fields' : 'without indexes', () => {
        beforeEach(async () => {
          if (withIndexes) {
            await col().createIndexes([
              index({ key: { kind: 1, n: 1 }, name: 'kind_n' }),
              index({ key: { 'meta.owner': 1 }, name: 'owner' }),
              index({ key: { tags: 1 }, name: 'tags' }),
              index({ key: { at: 1 }, name: 'at' }),
              index({ key: { 'runs.status': 1 }, name: 'run_status' }),
            ]);
          }
          await seed();
        });
        for (const [title, filter, expected] of table) {
          it(title, async () => {
            expect(sortedIds(await col().find(filter)), JSON.stringify(filter)).to.deep.equal(expected);
            expect(await col().countDocuments(filter)).to.equal(expected.length);
          });
        }
      });
    }
  });

  describe('sort, skip, limit and projection', () => {
    beforeEach(async () => {
      await col().insertMany([
        { _id: 'a', p: 2, at: new Date(3), kind: 'x', meta: { owner: 'ann', level: 1 } },
        { _id: 'b', p: 1, at: new Date(5), kind: 'x' },
        { _id: 'c', p: 2, at: new Date(1), kind: 'y' },
        { _id: 'd', p: 1, at: new Date(2), kind: 'y' },
        { _id: 'e', at: new Date(4), kind: 'z' },
      ]);
    });

    it('sorts by several keys, missing fields first when ascending', async () => {
      expect(ids(await col().find({}, { sort: { p: 1, at: -1 } }))).to.deep.equal(['e', 'b', 'd', 'a', 'c']);
      expect(ids(await col().find({}, { sort: { p: -1, at: 1 } }))).to.deep.equal(['c', 'a', 'd', 'b', 'e']);
    });

    it('sorts Dates chronologically', async () => {
      expect(ids(await col().find({}, { sort: { at: 1 } }))).to.deep.equal(['c', 'd', 'a', 'e', 'b']);
      expect(ids(await col().find({}, { sort: { at: -1 } }))).to.deep.equal(['b', 'e', 'a', 'd', 'c']);
    });

    it('breaks ties with the next key, so a unique last key gives a total order', async () => {
      expect(ids(await col().find({}, { sort: { kind: 1, _id: -1 } }))).to.deep.equal(['b', 'a', 'd', 'c', 'e']);
      expect(ids(await col().find({ kind: { $in: ['x', 'y'] } }, { sort: { p: 1, _id: 1 } }))).to.deep.equal(['b', 'd', 'a', 'c']);
    });

    it("accepts the driver's array form of a sort", async () => {
      expect(
        ids(
          await col().find(
            {},
            {
              sort: [
                ['p', 1],
                ['at', -1],
              ],
            },
          ),
        ),
      ).to.deep.equal(['e', 'b', 'd', 'a', 'c']);
    });

    it('applies skip and limit after the sort', async () => {
      expect(ids(await col().find({}, { sort: { at: 1 }, skip: 1, limit: 2 }))).to.deep.equal(['d', 'a']);
      expect(ids(await col().find({}, { sort: { at: 1 }, skip: 4, limit: 10 }))).to.deep.equal(['b']);
      expect(await col().find({}, { limit: 2 })).to.have.length(2);
      expect(await col().find({}, { skip: 3 })).to.have.length(2);
    });

    it('findOne takes the first document of the sort', async () => {
      expect((await col().findOne({}, { sort: { at: -1 } }))?._id).to.equal('b');
      expect((await col().findOne({ kind: 'y' }, { sort: { p: -1 } }))?._id).to.equal('c');
    });

    it('projects by inclusion, exclusion, dot path and without _id', async () => {
      expect(await col().findOne({ _id: 'a' }, { projection: { kind: 1 } })).to.deep.equal({ _id: 'a', kind: 'x' });
      expect(await col().findOne({ _id: 'a' }, { projection: { kind: 1, _id: 0 } })).to.deep.equal({ kind: 'x' });
      expect(await col().findOne({ _id: 'a' }, { projection: { at: 0, meta: 0 } })).to.deep.equal({ _id: 'a', p: 2, kind: 'x' });
      expect(await col().findOne({ _id: 'a' }, { projection: { 'meta.owner': 1 } })).to.deep.equal({ _id: 'a', meta: { owner: 'ann' } });
      expect(await col().find({ kind: 'y' }, { projection: { _id: 1 }, sort: { _id: 1 } })).to.deep.equal([{ _id: 'c' }, { _id: 'd' }]);
    });
  });

  describe('findOneAndUpdate', () => {
    beforeEach(async () => {
      await col().insertMany([
        { _id: 'j1', state: 'waiting', priority: 3, n: 0 },
        { _id: 'j2', state: 'waiting', priority: 1, n: 0 },
        { _id: 'j3', state: 'waiting', priority: 2, n: 0 },
      ]);
    });

    it('returns the document after the update by default', async () => {
      expect(await col().findOneAndUpdate({ _id: 'j1' }, { $inc: { n: 1 } })).to.deep.equal({ _id: 'j1', state: 'waiting', priority: 3, n: 1 });
    });

    it('returns the document before the update when asked', async () => {
      const before = await col().findOneAndUpdate({ _id: 'j1' }, { $set: { state: 'done' } }, { returnDocument: 'before' });
      expect(before?.state).to.equal('waiting');
      expect((await col().findOne({ _id: 'j1' }))?.state).to.equal('done');
    });

    it('returns null and writes nothing when nothing matches', async () => {
      expect(await col().findOneAndUpdate({ _id: 'nope' }, { $set: { state: 'done' } })).to.equal(null);
      expect(await col().countDocuments({})).to.equal(3);
    });

    it('updates the first match of the sort', async () => {
      const taken = await col().findOneAndUpdate({ state: 'waiting' }, { $set: { state: 'taken' } }, { sort: { priority: 1 } });
      expect(taken?._id).to.equal('j2');
      const next = await col().findOneAndUpdate({ state: 'waiting' }, { $set: { state: 'taken' } }, { sort: { priority: -1 } });
      expect(next?._id).to.equal('j1');
    });

    it('applies the projection to the returned document', async () => {
      expect(await col().findOneAndUpdate({ _id: 'j3' }, { $inc: { n: 5 } }, { projection: { n: 1, _id: 0 } })).to.deep.equal({ n: 5 });
    });
  });

  describe('compare-and-set', () => {
    const transition = (version: number, to: string, extra: Record<string, unknown> = {}) =>
      col().findOneAndUpdate(
        { _id: 'e', version },
        { $inc: { version: 1 }, $set: { state: to }, $push: { history: { to, at: new Date('2024-01-01T00:00:00Z'), ...extra } } },
      );

    beforeEach(async () => {
      await col().insertOne({ _id: 'e', state: 'pending', version: 1, history: [] });
    });

    it('applies the change at the expected version and returns the new state', async () => {
      const after = await transition(1, 'testing');
      expect(after?.version).to.equal(2);
      expect(after?.state).to.equal('testing');
      expect(after?.history).to.have.length(1);
      expect((after?.history as Array<{ at: unknown }>)[0]?.at).to.be.instanceOf(Date);
    });

    it('returns null on a stale version and leaves the document alone', async () => {
      await transition(1, 'testing');
      expect(await transition(1, 'failed')).to.equal(null);
      const doc = await col().findOne({ _id: 'e' });
      expect(doc?.version).to.equal(2);
      expect(doc?.state).to.equal('testing');
      expect(doc?.history).to.have.length(1);
    });

    it('lets exactly one of many concurrent writers at one version win', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => transition(1, `s${i}`, { writer: i })));
      expect(results.filter((r) => r !== null)).to.have.length(1);
      const doc = await col().findOne({ _id: 'e' });
      expect(doc?.version).to.equal(2);
      expect(doc?.history).to.have.length(1);
    });

    it('guards on the allowed current states too', async () => {
      const guarded = await col().findOneAndUpdate(
        { _id: 'e', state: { $in: ['testing', 'tests_passed'] } },
        { $set: { state: 'merged' }, $inc: { version: 1 } },
      );
      expect(guarded).to.equal(null);
      const ok = await col().findOneAndUpdate({ _id: 'e', state: { $in: ['pending'] }, version: 1 }, { $set: { state: 'testing' }, $inc: { version: 1 } });
      expect(ok?.state).to.equal('testing');
    });
  });

  describe('upsert', () => {
    const t0 = new Date('2024-01-01T00:00:00Z');
    const t1 = new Date('2024-02-01T00:00:00Z');

    it('builds the inserted document from the filter equalities, the update and $setOnInsert', async () => {
      const doc = await col().findOneAndUpdate(
        { queueId: 'q', prNumber: 7 },
        { $set: { state: 'pending' }, $setOnInsert: { _id: 'e7', createdAt: t0 }, $inc: { submits: 1 } },
        { upsert: true },
      );
      expect(doc).to.deep.equal({ _id: 'e7', queueId: 'q', prNumber: 7, state: 'pending', createdAt: t0, submits: 1 });
    });

    it('updates the existing document on the next call and ignores $setOnInsert', async () => {
      const update = (at: Date) => ({ $set: { state: 'pending' }, $setOnInsert: { _id: 'e7', createdAt: at }, $inc: { submits: 1 } });
      await col().findOneAndUpdate({ queueId: 'q', prNumber: 7 }, update(t0), { upsert: true });
      const doc = await col().findOneAndUpdate({ queueId: 'q', prNumber: 7 }, update(t1), { upsert: true });
      expect(doc?.createdAt).to.deep.equal(t0);
      expect(doc?.submits).to.equal(2);
      expect(await col().countDocuments({})).to.equal(1);
    });

    it('returns null for returnDocument before, yet inserts', async () => {
      const before = await col().findOneAndUpdate({ _id: 'k' }, { $set: { v: 1 } }, { upsert: true, returnDocument: 'before' });
      expect(before).to.equal(null);
      expect(await col().findOne({ _id: 'k' })).to.deep.equal({ _id: 'k', v: 1 });
    });

    it('takes $eq, $and and dotted equalities from the filter, not ranges', async () => {
      const r = await col().updateOne(
        { $and: [{ 'owner.name': 'ann' }, { kind: { $eq: 'x' } }], n: { $gt: 5 } },
        { $setOnInsert: { _id: 'u1' }, $set: { flag: true } },
        { upsert: true },
      );
      expect(r).to.deep.equal({ matchedCount: 0, modifiedCount: 0, upsertedId: 'u1' });
      expect(await col().findOne({ _id: 'u1' })).to.deep.equal({ _id: 'u1', owner: { name: 'ann' }, kind: 'x', flag: true });
    });

    it('reports a match instead of an upsert when the document exists', async () => {
      await col().insertOne({ _id: 'm', v: 1 });
      expect(await col().updateOne({ _id: 'm' }, { $set: { v: 2 } }, { upsert: true })).to.deep.equal({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
    });

    it('generates an _id when neither the filter nor the update has one', async () => {
      const r = await col().updateOne({ key: 'k1' }, { $set: { v: 1 } }, { upsert: true });
      expect(r.upsertedId).to.be.a('string');
      expect(await col().countDocuments({ key: 'k1', v: 1 })).to.equal(1);
    });
  });

  describe('update operators', () => {
    beforeEach(async () => {
      await col().insertOne({
        _id: 'o',
        n: 1,
        list: [1, 2, 3, 4, 5],
        set: ['a'],
        nested: { x: 1 },
        lo: 5,
        hi: 5,
        when: new Date(1000),
        gone: true,
        label: 'L0',
      });
    });

    it('applies $set, $inc, $push $each/$slice, $pull, $addToSet, $unset, $min and $max together', async () => {
      const r = await col().updateOne(
        { _id: 'o' },
        {
          $set: { 'nested.y': 2, label: 'L' },
          $inc: { n: 2, fresh: 1 },
          $push: { log: { $each: ['a', 'b', 'c'], $slice: -2 } },
          $pull: { list: { $gte: 4 } },
          $addToSet: { set: { $each: ['a', 'b'] } },
          $unset: { gone: '' },
          $min: { lo: 3, when: new Date(500) },
          $max: { hi: 9 },
        },
      );
      expect(r).to.deep.equal({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
      expect(await col().findOne({ _id: 'o' })).to.deep.equal({
        _id: 'o',
        n: 3,
        fresh: 1,
        list: [1, 2, 3],
        set: ['a', 'b'],
        nested: { x: 1, y: 2 },
        label: 'L',
        log: ['b', 'c'],
        lo: 3,
        hi: 9,
        when: new Date(500),
      });
    });

    it('applies $mul, $pop from either end and $pullAll', async () => {
      await col().updateOne({ _id: 'o' }, { $mul: { hi: 3, absent: 2 }, $pop: { list: 1, set: -1 } });
      await col().updateOne({ _id: 'o' }, { $pullAll: { list: [1, 3, 9] } });
      const doc = await col().findOne({ _id: 'o' });
      expect([doc?.hi, doc?.absent, doc?.list, doc?.set]).to.deep.equal([15, 0, [2, 4], []]);
    });

    it('$currentDate sets the time of each update that carries it', async () => {
      const times: number[] = [];
      for (let i = 0; i < 2; i++) {
        const before = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 5));
        await col().updateOne({ _id: 'o' }, { $currentDate: { touched: true } });
        const touched = (await col().findOne({ _id: 'o' }))?.touched as Date;
        expect(touched).to.be.instanceOf(Date);
        expect(touched.getTime()).to.be.greaterThan(before);
        times.push(touched.getTime());
      }
      expect(times[1]).to.be.greaterThan(times[0] as number);
    });

    it('stores its own copy of the values an update carries', async () => {
      const nested = { deep: { list: [1, 2] } };
      const item = { tag: 'a', parts: ['x'] };
      await col().updateOne({ _id: 'o' }, { $set: { nested }, $push: { log: { $each: [item] } } });
      nested.deep.list.push(3);
      item.parts.push('y');
      const doc = await col().findOne({ _id: 'o' });
      expect(doc?.nested).to.deep.equal({ deep: { list: [1, 2] } });
      expect(doc?.log).to.deep.equal([{ tag: 'a', parts: ['x'] }]);
    });

    it('keeps the newest entries with a negative $slice and the first ones with a positive one', async () => {
      await col().updateOne({ _id: 'o' }, { $push: { log: { $each: ['a', 'b'] } } });
      await col().updateOne({ _id: 'o' }, { $push: { log: { $each: ['c', 'd'], $slice: -3 }, first: { $each: [1, 2, 3], $slice: 2 } } });
      const doc = await col().findOne({ _id: 'o' });
      expect(doc?.log).to.deep.equal(['b', 'c', 'd']);
      expect(doc?.first).to.deep.equal([1, 2]);
    });

    it('$pull removes array documents matching a condition', async () => {
      await col().updateOne(
        { _id: 'o' },
        {
          $set: {
            history: [
              { reason: 'x', n: 1 },
              { reason: 'y', n: 2 },
              { reason: 'x', n: 3 },
            ],
          },
        },
      );
      await col().updateOne({ _id: 'o' }, { $pull: { history: { reason: 'x' } } });
      expect((await col().findOne({ _id: 'o' }))?.history).to.deep.equal([{ reason: 'y', n: 2 }]);
    });

    it('updates the matched array element with the positional $', async () => {
      await col().insertOne({
        _id: 'p',
        items: [
          { id: 1, s: 'a' },
          { id: 2, s: 'a' },
        ],
      });
      await col().updateOne({ _id: 'p', 'items.id': 2 }, { $set: { 'items.$.s': 'b' } });
      expect((await col().findOne({ _id: 'p' }))?.items).to.deep.equal([
        { id: 1, s: 'a' },
        { id: 2, s: 'b' },
      ]);
    });

    it('applies an aggregation-pipeline update', async () => {
      await col().updateOne({ _id: 'o' }, [{ $set: { total: { $add: ['$n', '$hi'] }, label: { $concat: ['$label', '!'] } } }, { $unset: 'gone' }]);
      const doc = await col().findOne({ _id: 'o' });
      expect(doc?.total).to.equal(6);
      expect(doc?.label).to.equal('L0!');
      expect(doc).to.not.have.property('gone');
    });

    it('counts a match without a change as not modified', async () => {
      expect(await col().updateOne({ _id: 'o' }, { $set: { n: 1 } })).to.deep.equal({ matchedCount: 1, modifiedCount: 0, upsertedId: null });
      expect(await col().updateOne({ _id: 'nope' }, { $set: { n: 1 } })).to.deep.equal({ matchedCount: 0, modifiedCount: 0, upsertedId: null });
    });

    it('updateMany updates every match and counts only real changes', async () => {
      await col().insertMany([
        { _id: 'm1', group: 'g', v: 1 },
        { _id: 'm2', group: 'g', v: 2 },
        { _id: 'm3', group: 'g', v: 2 },
        { _id: 'm4', group: 'h', v: 1 },
      ]);
      expect(await col().updateMany({ group: 'g' }, { $set: { v: 2 } })).to.deep.equal({ matchedCount: 3, modifiedCount: 1, upsertedId: null });
      expect(await col().countDocuments({ v: 2 })).to.equal(3);
    });

    it('rejects $inc on a non-number, $push on a non-array, conflicting paths and changing _id', async () => {
      expect((await rejectionOf(col().updateOne({ _id: 'o' }, { $inc: { label: 1 } }))).code).to.equal(14);
      expect((await rejectionOf(col().updateOne({ _id: 'o' }, { $push: { n: 1 } }))).code).to.equal(2);
      expect((await rejectionOf(col().updateOne({ _id: 'o' }, { $set: { n: 5 }, $inc: { n: 1 } }))).code).to.equal(40);
      expect((await rejectionOf(col().updateOne({ _id: 'o' }, { $set: { _id: 'other' } }))).code).to.equal(66);
      expect((await col().findOne({ _id: 'o' }))?.n).to.equal(1);
    });

    it('rejects a replacement document where an update is expected', async () => {
      const err = await rejectionOf(col().updateOne({ _id: 'o' }, { n: 2 }));
      expect(err.message).to.contain('atomic operators');
    });
  });

  describe('unique indexes', () => {
    it('rejects a duplicate value with code 11000 and leaves the collection unchanged', async () => {
      await col().createIndexes([index({ key: { slug: 1 }, name: 'slug_unique', unique: true })]);
      await col().insertOne({ _id: '1', slug: 'a' });
      await expectDuplicateKey(col().insertOne({ _id: '2', slug: 'a' }), 'slug_unique');
      expect(await col().find({})).to.deep.equal([{ _id: '1', slug: 'a' }]);
    });

    it('treats a missing field as null', async () => {
      await col().createIndexes([index({ key: { slug: 1 }, name: 'slug_unique', unique: true })]);
      await col().insertOne({ _id: '1' });
      await expectDuplicateKey(col().insertOne({ _id: '2' }));
      await expectDuplicateKey(col().insertOne({ _id: '3', slug: null }));
      await col().insertOne({ _id: '4', slug: 'b' });
      expect(await col().countDocuments({})).to.equal(2);
    });

    it('enforces compound keys on the combination only', async () => {
      await col().createIndexes([index({ key: { queueId: 1, prNumber: 1 }, name: 'queue_pr', unique: true })]);
      await col().insertMany([
        { _id: '1', queueId: 'q1', prNumber: 1 },
        { _id: '2', queueId: 'q1', prNumber: 2 },
        { _id: '3', queueId: 'q2', prNumber: 1 },
      ]);
      await expectDuplicateKey(col().insertOne({ _id: '4', queueId: 'q1', prNumber: 1 }), 'queue_pr');
    });

    it('checks a partial index only among documents matching its filter', async () => {
      await col().createIndexes([index({ key: { queueId: 1, prNumber: 1 }, name: 'one_active', unique: true, partialFilterExpression: { active: true } })]);
      await col().insertOne({ _id: '1', queueId: 'q', prNumber: 1, active: true });
      await col().insertOne({ _id: '2', queueId: 'q', prNumber: 1, active: false });
      await col().insertOne({ _id: '3', queueId: 'q', prNumber: 1, active: false });
      await expectDuplicateKey(col().insertOne({ _id: '4', queueId: 'q', prNumber: 1, active: true }), 'one_active');
      // Ending the active entry frees the key for a new one.
      await col().updateOne({ _id: '1' }, { $set: { active: false } });
      await col().insertOne({ _id: '4', queueId: 'q', prNumber: 1, active: true });
      await expectDuplicateKey(col().updateOne({ _id: '2' }, { $set: { active: true } }), 'one_active');
      expect(sortedIds(await col().find({ queueId: 'q', prNumber: 1, active: true }))).to.deep.equal(['4']);
    });

    it('indexes each element of an array field', async () => {
      await col().createIndexes([index({ key: { tags: 1 }, name: 'tags_unique', unique: true })]);
      await col().insertOne({ _id: '1', tags: ['a', 'b'] });
      await col().insertOne({ _id: '2', tags: ['c'] });
      await col().insertOne({ _id: '3', tags: ['e', 'e'] });
      await expectDuplicateKey(col().insertOne({ _id: '4', tags: ['b', 'd'] }), 'tags_unique');
    });

    describe('on every write path', () => {
      beforeEach(async () => {
        await col().createIndexes([index({ key: { slug: 1 }, name: 'slug_unique', unique: true })]);
        await col().insertMany([
          { _id: '1', slug: 'a' },
          { _id: '2', slug: 'b' },
        ]);
      });

      it('updateOne and updateMany', async () => {
        await expectDuplicateKey(col().updateOne({ _id: '2' }, { $set: { slug: 'a' } }), 'slug_unique');
        expect(await col().findOne({ _id: '2' })).to.deep.equal({ _id: '2', slug: 'b' });
        await expectDuplicateKey(col().updateMany({}, { $set: { slug: 'same' } }));
        expect(await col().countDocuments({ slug: 'same' })).to.be.at.most(1);
      });

      it('findOneAndUpdate, with and without upsert', async () => {
        await expectDuplicateKey(col().findOneAndUpdate({ _id: '2' }, { $set: { slug: 'a' } }));
        await expectDuplicateKey(col().findOneAndUpdate({ _id: 'new' }, { $set: { slug: 'a' } }, { upsert: true }));
        expect(await col().findOne({ _id: 'new' })).to.equal(null);
        expect(await col().findOne({ _id: '2' })).to.deep.equal({ _id: '2', slug: 'b' });
      });

      it('updateOne with upsert', async () => {
        await expectDuplicateKey(col().updateOne({ _id: 'new' }, { $set: { slug: 'b' } }, { upsert: true }));
        expect(await col().countDocuments({})).to.equal(2);
      });

      it('insertMany ordered stops at the duplicate, unordered inserts the rest', async () => {
        const ordered = await expectDuplicateKey(
          col().insertMany([
            { _id: '3', slug: 'c' },
            { _id: '4', slug: 'a' },
            { _id: '5', slug: 'd' },
          ]),
        );
        expect(ordered.insertedCount).to.equal(1);
        expect(sortedIds(await col().find({}))).to.deep.equal(['1', '2', '3']);

        const unordered = await expectDuplicateKey(
          col().insertMany(
            [
              { _id: '6', slug: 'e' },
              { _id: '7', slug: 'a' },
              { _id: '8', slug: 'f' },
            ],
            { ordered: false },
          ),
        );
        expect(unordered.insertedCount).to.equal(2);
        expect(sortedIds(await col().find({}))).to.deep.equal(['1', '2', '3', '6', '8']);
      });

      it('bulkWrite ordered stops at the duplicate, unordered carries on', async () => {
        const ordered = await expectDuplicateKey(
          col().bulkWrite([
            { insertOne: { document: { _id: '3', slug: 'c' } } },
            { updateOne: { filter: { _id: '3' }, update: { $set: { slug: 'a' } } } },
            { insertOne: { document: { _id: '4', slug: 'd' } } },
          ]),
        );
        expect(ordered.insertedCount).to.equal(1);
        expect(await col().findOne({ _id: '3' })).to.deep.equal({ _id: '3', slug: 'c' });
        expect(await col().findOne({ _id: '4' })).to.equal(null);

        const unordered = await expectDuplicateKey(
          col().bulkWrite(
            [
              { insertOne: { document: { _id: '5', slug: 'a' } } },
              { insertOne: { document: { _id: '6', slug: 'e' } } },
              { updateOne: { filter: { _id: '6' }, update: { $set: { slug: 'f' } } } },
            ],
            { ordered: false },
          ),
        );
        expect(unordered.insertedCount).to.equal(1);
        expect(await col().findOne({ _id: '5' })).to.equal(null);
        expect(await col().findOne({ _id: '6' })).to.deep.equal({ _id: '6', slug: 'f' });
      });

      it('a deleted document frees its key', async () => {
        await col().deleteOne({ _id: '1' });
        await col().insertOne({ _id: '9', slug: 'a' });
        expect(await col().countDocuments({ slug: 'a' })).to.equal(1);
      });
    });

    it('creating an index again is a no-op; a different spec under the same name is refused', async () => {
      const spec = index({ key: { slug: 1 }, name: 'slug_unique', unique: true });
      await col().createIndexes([spec]);
      await col().createIndexes([spec]);
      await rejectionOf(col().createIndexes([index({ key: { other: 1 }, name: 'slug_unique', unique: true })]));
    });

    it('refuses to build a unique index over duplicate data', async () => {
      await col().insertMany([
        { _id: '1', slug: 'a' },
        { _id: '2', slug: 'a' },
      ]);
      await expectDuplicateKey(col().createIndexes([index({ key: { slug: 1 }, name: 'slug_unique', unique: true })]));
      await col().insertOne({ _id: '3', slug: 'a' });
    });

    it('accepts TTL and partial index specs', async () => {
      await col().createIndexes([
        index({ key: { expiresAt: 1 }, name: 'expires', expireAfterSeconds: 3600 }),
        index({ key: { orgId: 1, active: 1 }, name: 'org_active', partialFilterExpression: { active: true } }),
      ]);
      await col().insertOne({ _id: '1', expiresAt: new Date(), orgId: 'o', active: true });
      expect(await col().countDocuments({ orgId: 'o', active: true })).to.equal(1);
    });
  });

  describe('aggregate', () => {
    beforeEach(async () => {
      await col('runs').insertMany([
        { _id: 'r1', queue: 'q1', status: 'passed', ms: 10, at: new Date(1000), tags: ['a', 'b'] },
        { _id: 'r2', queue: 'q1', status: 'failed', ms: 30, at: new Date(3000), tags: ['b'] },
        { _id: 'r3', queue: 'q1', status: 'passed', ms: 20, at: new Date(2000), tags: [] },
        { _id: 'r4', queue: 'q2', status: 'passed', ms: 40, at: new Date(4000), tags: ['a'] },
      ]);
    });

    it('$match, $group, $sort', async () => {
      const rows = await col('runs').aggregate([
        { $match: { queue: 'q1' } },
        { $group: { _id: '$status', n: { $sum: 1 }, total: { $sum: '$ms' }, latest: { $max: '$at' } } },
        { $sort: { _id: 1 } },
      ]);
      expect(rows).to.deep.equal([
        { _id: 'failed', n: 1, total: 30, latest: new Date(3000) },
        { _id: 'passed', n: 2, total: 30, latest: new Date(2000) },
      ]);
    });

    it('$sort, $limit, $project with a computed field', async () => {
      const rows = await col('runs').aggregate([
        { $sort: { ms: -1 } },
        { $limit: 2 },
        { $project: { _id: 0, id: '$_id', seconds: { $divide: ['$ms', 1000] } } },
      ]);
      expect(rows).to.deep.equal([
        { id: 'r4', seconds: 0.04 },
        { id: 'r2', seconds: 0.03 },
      ]);
    });

    it('$count, and no document when nothing matches', async () => {
      expect(await col('runs').aggregate([{ $match: { status: 'passed' } }, { $count: 'passed' }])).to.deep.equal([{ passed: 3 }]);
      expect(await col('runs').aggregate([{ $match: { status: 'nope' } }, { $count: 'n' }])).to.deep.equal([]);
    });

    it('$facet', async () => {
      const [row] = await col('runs').aggregate([
        { $match: { queue: 'q1' } },
        {
          $facet: {
            byStatus: [{ $group: { _id: '$status', n: { $sum: 1 } } }, { $sort: { _id: 1 } }],
            total: [{ $count: 'n' }],
            slowest: [{ $sort: { ms: -1 } }, { $limit: 1 }, { $project: { _id: 1 } }],
            none: [{ $match: { status: 'nope' } }, { $count: 'n' }],
          },
        },
      ]);
      expect(row).to.deep.equal({
        byStatus: [
          { _id: 'failed', n: 1 },
          { _id: 'passed', n: 2 },
        ],
        total: [{ n: 3 }],
        slowest: [{ _id: 'r2' }],
        none: [],
      });
    });

    it('$unwind then $group', async () => {
      const rows = await col('runs').aggregate([{ $unwind: '$tags' }, { $group: { _id: '$tags', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]);
      expect(rows).to.deep.equal([
        { _id: 'a', n: 2 },
        { _id: 'b', n: 2 },
      ]);
    });

    it('$lookup from another collection', async () => {
      await col('queues').insertMany([
        { _id: 'q1', name: 'main' },
        { _id: 'q2', name: 'release' },
      ]);
      const rows = await col('runs').aggregate([
        { $match: { _id: 'r4' } },
        { $lookup: { from: 'queues', localField: 'queue', foreignField: '_id', as: 'queueDoc' } },
        { $project: { _id: 1, queueDoc: 1 } },
      ]);
      expect(rows).to.deep.equal([{ _id: 'r4', queueDoc: [{ _id: 'q2', name: 'release' }] }]);
    });

    it('hands out results the caller may change freely', async () => {
      const [first] = await col('runs').aggregate([{ $match: { _id: 'r1' } }]);
      (first?.tags as string[]).push('mutated');
      expect((await col('runs').findOne({ _id: 'r1' }))?.tags).to.deep.equal(['a', 'b']);
    });
  });

  describe('count and delete', () => {
    beforeEach(async () => {
      await col().insertMany([
        { _id: '1', kind: 'a' },
        { _id: '2', kind: 'a' },
        { _id: '3', kind: 'a' },
        { _id: '4', kind: 'b' },
      ]);
    });

    it('countDocuments with and without a filter', async () => {
      expect(await col().countDocuments({})).to.equal(4);
      expect(await col().countDocuments({ kind: 'a' })).to.equal(3);
      expect(await col().countDocuments({ kind: 'z' })).to.equal(0);
    });

    it('deleteOne removes exactly one match', async () => {
      expect(await col().deleteOne({ kind: 'a' })).to.deep.equal({ deletedCount: 1 });
      expect(await col().countDocuments({ kind: 'a' })).to.equal(2);
      expect(await col().deleteOne({ kind: 'z' })).to.deep.equal({ deletedCount: 0 });
    });

    it('deleteMany removes every match', async () => {
      expect(await col().deleteMany({ kind: 'a' })).to.deep.equal({ deletedCount: 3 });
      expect(ids(await col().find({}))).to.deep.equal(['4']);
      expect(await col().deleteMany({})).to.deep.equal({ deletedCount: 1 });
      expect(await col().countDocuments({})).to.equal(0);
    });
  });

  describe('bulkWrite', () => {
    it('applies every kind of operation and reports the counts', async () => {
      await col().insertMany([
        { _id: '1', kind: 'a', v: 0 },
        { _id: '2', kind: 'a', v: 0 },
        { _id: '3', kind: 'b', v: 0 },
        { _id: '4', kind: 'c', v: 0 },
      ]);
      const result = await col().bulkWrite([
        { insertOne: { document: { _id: '5', kind: 'c', v: 0 } } },
        { updateOne: { filter: { _id: '1' }, update: { $inc: { v: 1 } } } },
        { updateOne: { filter: { _id: '6' }, update: { $set: { kind: 'd' } }, upsert: true } },
        { updateMany: { filter: { kind: 'a' }, update: { $set: { seen: true } } } },
        { deleteOne: { filter: { kind: 'b' } } },
        { deleteMany: { filter: { kind: 'c' } } },
      ]);
      expect(result).to.deep.equal({ insertedCount: 1, matchedCount: 3, modifiedCount: 3, deletedCount: 3, upsertedCount: 1 });
      expect(sortedIds(await col().find({}))).to.deep.equal(['1', '2', '6']);
      expect(await col().findOne({ _id: '6' })).to.deep.equal({ _id: '6', kind: 'd' });
    });
  });
});

// ---- embedded database only ----

const EMBEDDED_MODULE = fileURLToPath(new URL('../../shared/platform/database/embedded/embedded-database.ts', import.meta.url));

/** Runs `body` in a child process with `openEmbeddedDatabase` in scope, then SIGKILLs it mid-life. */
function runAndKill(dataDir: string, body: string): void {
  const script = `
    const { openEmbeddedDatabase } = await import(process.argv[1]);
    const db = await openEmbeddedDatabase({ dataDir: process.argv[2] });
    ${body}
    process.kill(process.pid, 'SIGKILL');
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, EMBEDDED_MODULE, dataDir], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (child.signal !== 'SIGKILL') throw new Error(`child did not die by SIGKILL (status ${child.status}): ${child.stderr}`);
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('embedded database', () => {
  let dataDir: string;
  const opened: EmbeddedDatabase[] = [];
  const open = async (options: Parameters<typeof openEmbeddedDatabase>[0] = {}) => {
    const db = await openEmbeddedDatabase(options);
    opened.push(db);
    return db;
  };

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-embedded-'));
  });

  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('in memory', () => {
    it('keeps nothing on disk without a dataDir and is what openDatabase({}) returns', async () => {
      const db = await open();
      expect(db.dataDir).to.equal(null);
      const viaFactory = await openDatabase({});
      expect(viaFactory.kind).to.equal('embedded');
      await viaFactory.close();
    });

    it('returns ties of a sort in insertion order', async () => {
      const c = (await open()).collection<Doc>('t');
      for (const id of ['m', 'c', 'x', 'a']) await c.insertOne({ _id: id, p: 1 });
      await c.insertOne({ _id: 'first', p: 0 });
      expect(ids(await c.find({}, { sort: { p: 1 } }))).to.deep.equal(['first', 'm', 'c', 'x', 'a']);
    });

    it('sorts an array field by its smallest element ascending and its largest descending', async () => {
      const c = (await open()).collection<Doc>('t');
      await c.insertMany([
        { _id: 'a', v: [5, 1] },
        { _id: 'b', v: 3 },
        { _id: 'c', v: [2, 9] },
      ]);
      expect(ids(await c.find({}, { sort: { v: 1 } }))).to.deep.equal(['a', 'c', 'b']);
      expect(ids(await c.find({}, { sort: { v: -1 } }))).to.deep.equal(['c', 'a', 'b']);
    });

    it('keeps its data across close() so a restarted service can reuse it', async () => {
      const db = await open();
      await db.collection<Doc>('t').insertOne({ _id: '1' });
      await db.close();
      expect(await db.collection<Doc>('t').countDocuments({})).to.equal(1);
    });

    it('refuses an empty insertMany, as the driver does', async () => {
      const c = (await open()).collection<Doc>('t');
      expect((await rejectionOf(c.insertMany([]))).message).to.contain('empty');
    });
  });

  describe('TTL', () => {
    it('the periodic sweep removes expired documents and nothing else', async () => {
      const db = await open({ ttlSweepIntervalMs: 20 });
      const c = db.collection<Doc>('sessions');
      await c.createIndexes([index({ key: { expiresAt: 1 }, name: 'expires', expireAfterSeconds: 0 })]);
      await c.insertMany([
        { _id: 'old', expiresAt: new Date(Date.now() - 1000) },
        { _id: 'future', expiresAt: new Date(Date.now() + 3_600_000) },
        { _id: 'no-date', expiresAt: 'not a date' },
        { _id: 'missing' },
      ]);
      await waitFor('the expired document to be swept', async () => (await c.findOne({ _id: 'old' })) === null, { intervalMs: 10 });
      expect(sortedIds(await c.find({}))).to.deep.equal(['future', 'missing', 'no-date']);
    });

    it('expires expireAfterSeconds after the date, and an array by its earliest date', async () => {
      const db = await open();
      const c = db.collection<Doc>('runs');
      await c.createIndexes([index({ key: { createdAt: 1 }, name: 'ttl', expireAfterSeconds: 3600 })]);
      const now = Date.now();
      await c.insertMany([
        { _id: 'two-hours', createdAt: new Date(now - 2 * 3600_000) },
        { _id: 'ten-minutes', createdAt: new Date(now - 600_000) },
        { _id: 'array', createdAt: [new Date(now), new Date(now - 2 * 3600_000)] },
      ]);
      expect(db.sweepExpired(now)).to.equal(2);
      expect(ids(await c.find({}))).to.deep.equal(['ten-minutes']);
    });
  });

  describe('persistence', () => {
    it('restores documents, Dates and indexes after close and reopen', async () => {
      let db = await open({ dataDir });
      let c = db.collection<Doc>('entries');
      await c.createIndexes([index({ key: { slug: 1 }, name: 'slug_unique', unique: true })]);
      await c.insertMany([
        { _id: '1', slug: 'a', at: new Date(1234), nested: { list: [1, { deep: true }] } },
        { _id: '2', slug: 'b', n: 1 },
        { _id: '3', slug: 'c' },
      ]);
      await c.updateOne({ _id: '2' }, { $inc: { n: 1 }, $push: { history: { at: new Date(99) } } });
      await c.deleteOne({ _id: '3' });
      await db.collection<Doc>('other').insertOne({ _id: 'x' });
      await db.close();

      db = await open({ dataDir });
      c = db.collection<Doc>('entries');
      expect(await c.find({}, { sort: { _id: 1 } })).to.deep.equal([
        { _id: '1', slug: 'a', at: new Date(1234), nested: { list: [1, { deep: true }] } },
        { _id: '2', slug: 'b', n: 2, history: [{ at: new Date(99) }] },
      ]);
      expect(await db.collection<Doc>('other').countDocuments({})).to.equal(1);
      await expectDuplicateKey(c.insertOne({ _id: '4', slug: 'a' }), 'slug_unique');
    });

    it('restores every acknowledged write after the process is killed', async () => {
      runAndKill(
        dataDir,
        `const c = db.collection('entries');
         await c.createIndexes([{ key: { slug: 1 }, name: 'slug_unique', unique: true, comment: 'test' }]);
         for (let i = 0; i < 50; i++) await c.insertOne({ _id: 'e' + i, slug: 's' + i, at: new Date(i) });
         await c.updateOne({ _id: 'e0' }, { $set: { state: 'done' } });
         await c.deleteOne({ _id: 'e1' });`,
      );
      // The dead process's lock file is still there and is taken over.
      expect(existsSync(path.join(dataDir, 'LOCK'))).to.equal(true);
      const db = await open({ dataDir });
      const c = db.collection<Doc>('entries');
      expect(await c.countDocuments({})).to.equal(49);
      expect((await c.findOne({ _id: 'e0' }))?.state).to.equal('done');
      expect((await c.findOne({ _id: 'e49' }))?.at).to.deep.equal(new Date(49));
      await expectDuplicateKey(c.insertOne({ _id: 'new', slug: 's5' }), 'slug_unique');
    });

    it('ignores a torn last journal line and keeps appending cleanly after it', async () => {
      runAndKill(dataDir, `for (let i = 0; i < 3; i++) await db.collection('t').insertOne({ _id: 'k' + i });`);
      const journal = readdirSync(dataDir).find((f) => f.endsWith('.journal'));
      expect(journal, 'a journal file').to.be.a('string');
      appendFileSync(path.join(dataDir, journal as string), '{"p":{"_id":"torn","x":');

      let db = await open({ dataDir });
      expect(sortedIds(await db.collection<Doc>('t').find({}))).to.deep.equal(['k0', 'k1', 'k2']);
      await db.collection<Doc>('t').insertOne({ _id: 'k3' });
      await db.close();

      db = await open({ dataDir });
      expect(sortedIds(await db.collection<Doc>('t').find({}))).to.deep.equal(['k0', 'k1', 'k2', 'k3']);
    });

    it('refuses to start on a corrupt line in the middle of a journal, naming the file', async () => {
      runAndKill(dataDir, `for (let i = 0; i < 3; i++) await db.collection('t').insertOne({ _id: 'k' + i });`);
      const journal = path.join(dataDir, readdirSync(dataDir).find((f) => f.endsWith('.journal')) as string);
      const lines = readFileSync(journal, 'utf8').split('\n');
      lines[1] = '{"p":{"_id"';
      writeFileSync(journal, lines.join('\n'));
      const err = await rejectionOf(openEmbeddedDatabase({ dataDir }));
      expect(err.message).to.contain(journal).and.to.contain('line 2');
    });

    it('compacts the journal into a snapshot as it grows, and recovers snapshot + journal after a kill', async () => {
      runAndKill(
        dataDir,
        `await db.close();
         const big = await openEmbeddedDatabase({ dataDir: process.argv[2], compactThresholdBytes: 2048 });
         const c = big.collection('t');
         await c.createIndexes([{ key: { n: 1 }, name: 'n_unique', unique: true, comment: 'test' }]);
         for (let i = 0; i < 200; i++) await c.insertOne({ _id: 'd' + i, n: i, at: new Date(i) });
         for (let i = 0; i < 200; i += 2) await c.updateOne({ _id: 'd' + i }, { $set: { even: true } });
         await c.deleteMany({ n: { $gte: 150 } });
         await big.settled();`,
      );
      const files = readdirSync(dataDir);
      expect(files).to.include('t.snapshot');
      const journals = files.filter((f) => f.endsWith('.journal'));
      expect(journals.length).to.be.at.most(1);
      expect(journals).to.not.include('t.0.journal');

      const db = await open({ dataDir });
      const c = db.collection<Doc>('t');
      const docs = await c.find({}, { sort: { n: 1 } });
      expect(docs).to.have.length(150);
      docs.forEach((doc, i) => {
        expect(doc).to.deep.equal(i % 2 === 0 ? { _id: `d${i}`, n: i, at: new Date(i), even: true } : { _id: `d${i}`, n: i, at: new Date(i) });
      });
      await expectDuplicateKey(c.insertOne({ _id: 'dup', n: 3 }), 'n_unique');
    });

    it('rejects operations on a persisted database after close', async () => {
      const db = await open({ dataDir });
      await db.close();
      const err = await rejectionOf(db.collection<Doc>('t').insertOne({ _id: '1' }));
      expect(err.message).to.contain('closed');
    });

    it('survives collection names that are not file-name safe', async () => {
      let db = await open({ dataDir });
      await db.collection<Doc>('a/b.c d').insertOne({ _id: '1' });
      await db.close();
      db = await open({ dataDir });
      expect(await db.collection<Doc>('a/b.c d').countDocuments({})).to.equal(1);
    });
  });

  describe('data directory lock', () => {
    it('refuses a second open of the same directory while the first is open', async () => {
      const first = await open({ dataDir });
      const err = await rejectionOf(openEmbeddedDatabase({ dataDir }));
      expect(err.message)
        .to.contain(first.dataDir as string)
        .and.to.contain(String(process.pid));
      await first.close();
      const second = await open({ dataDir });
      expect(second.dataDir).to.equal(first.dataDir);
    });

    it('refuses a directory locked by another running process, naming its pid', async () => {
      writeFileSync(path.join(dataDir, 'LOCK'), `${process.ppid}\n`);
      const err = await rejectionOf(openEmbeddedDatabase({ dataDir }));
      expect(err.message).to.contain(String(process.ppid)).and.to.contain('in use');
    });

    it('takes over a stale lock left by a dead process', async () => {
      writeFileSync(path.join(dataDir, 'LOCK'), `${deadPid()}\n`);
      const db = await open({ dataDir });
      expect(readFileSync(path.join(db.dataDir as string, 'LOCK'), 'utf8').trim()).to.equal(String(process.pid));
      await db.close();
      expect(existsSync(path.join(dataDir, 'LOCK'))).to.equal(false);
    });
  });
});
