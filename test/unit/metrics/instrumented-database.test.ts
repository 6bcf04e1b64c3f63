// The Database decorator times every collection operation and counts failures, without changing
// what the operations return or throw.
import { expect } from 'chai';
import { openDatabase } from '../../../shared/platform/database/open-database.js';
import { instrumentDatabase } from '../../../shared/platform/metrics/instrumented-database.js';
import { OperatorMetrics } from '../../../shared/platform/metrics/operator-metrics.js';
import { isDuplicateKeyError, type Database } from '../../../shared/platform/database/collection.js';

async function countOf(metrics: OperatorMetrics, collection: string, operation: string): Promise<number> {
  const { values } = await metrics.dbDuration.get();
  return (
    values.find((v) => v.metricName === 'openmq_db_operation_duration_seconds_count' && v.labels.collection === collection && v.labels.operation === operation)
      ?.value ?? 0
  );
}

async function errorsOf(metrics: OperatorMetrics, collection: string, operation: string): Promise<number> {
  const { values } = await metrics.dbErrors.get();
  return values.find((v) => v.labels.collection === collection && v.labels.operation === operation)?.value ?? 0;
}

describe('metrics: instrumented database', () => {
  let raw: Database;
  let db: Database;
  let metrics: OperatorMetrics;

  beforeEach(async () => {
    raw = await openDatabase({});
    metrics = new OperatorMetrics();
    db = instrumentDatabase(raw, metrics);
  });
  afterEach(async () => {
    await db.close();
  });

  it('times each operation by collection and operation and passes results through', async () => {
    expect(db.kind).to.equal(raw.kind);
    const things = db.collection<{ _id: string; n: number }>('things');
    expect(things.name).to.equal('things');
    expect(db.collection('things')).to.equal(things);
    await things.insertOne({ _id: 'a', n: 1 });
    await things.insertMany([
      { _id: 'b', n: 2 },
      { _id: 'c', n: 3 },
    ]);
    expect((await things.find({ n: { $gte: 2 } }, { sort: { n: 1 } })).map((d) => d._id)).to.deep.equal(['b', 'c']);
    expect(await things.countDocuments({})).to.equal(3);
    expect(await things.aggregate([{ $group: { _id: null, total: { $sum: '$n' } } }])).to.deep.equal([{ _id: null, total: 6 }]);
    expect(await countOf(metrics, 'things', 'insertOne')).to.equal(1);
    expect(await countOf(metrics, 'things', 'insertMany')).to.equal(1);
    expect(await countOf(metrics, 'things', 'find')).to.equal(1);
    expect(await countOf(metrics, 'things', 'countDocuments')).to.equal(1);
    expect(await countOf(metrics, 'things', 'aggregate')).to.equal(1);
    expect(await countOf(metrics, 'things', 'findOne')).to.equal(0);
  });

  it('rethrows errors, counting all but duplicate-key rejections', async () => {
    const things = db.collection<{ _id: string; n: number }>('things');
    await things.insertOne({ _id: 'a', n: 1 });
    const dup = await things.insertOne({ _id: 'a', n: 2 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isDuplicateKeyError(dup)).to.equal(true);
    expect(await errorsOf(metrics, 'things', 'insertOne')).to.equal(0);
    expect(await countOf(metrics, 'things', 'insertOne')).to.equal(2);

    const bad = await things.aggregate([{ $noSuchStage: {} }]).then(
      () => null,
      (err: unknown) => err,
    );
    expect(bad).to.be.instanceOf(Error);
    expect(await errorsOf(metrics, 'things', 'aggregate')).to.equal(1);
  });
});
