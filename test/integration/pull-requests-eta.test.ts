// getSubmittedPullRequest with includeEstimatedTimeToMerge (issue 14 §3): position (1 = next to
// merge) and, once a run has concluded, the estimated time to merge with its range.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';

interface Standing {
  state: string;
  position?: number;
  estimatedTimeToMerge?: number;
  estimatedTimeToMergeRange?: { low: number; high: number };
}

describe('pull requests: position and estimated time to merge', function () {
  this.timeout(60_000);
  let svc: TestService;
  let q: PrQueue;

  beforeEach(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
    q = await makeQueue(svc);
  });
  afterEach(async () => {
    await svc.close();
  });

  const standing = async (n: number, include = true): Promise<Standing> => {
    const res = await q.getRaw({ number: n }, include ? { includeEstimatedTimeToMerge: true } : {});
    expect(res.status).to.equal(200);
    expectOpenApiResponse('/getSubmittedPullRequest', res.body);
    return res.body as Standing;
  };

  it('answers the position, and an estimate once a run of the queue has concluded', async () => {
    for (const n of [1, 2, 3]) await q.pr(n);
    await q.submitOk(1);
    await q.waitState(1, 'testing');
    const first = await standing(1);
    expect(first.position).to.equal(1);
    expect(first).not.to.have.property('estimatedTimeToMerge');
    expect(await standing(1, false)).not.to.have.property('position');

    await q.ci(1, 'success');
    await q.waitState(1, 'merged');
    expect(await standing(1)).not.to.have.property('position');

    await q.submitOk(2);
    await q.submitOk(3);
    await q.waitState(2, 'testing');
    await q.waitState(3, 'pending');
    const [two, three] = [await standing(2), await standing(3)];
    expect(two.position).to.equal(1);
    expect(three.position).to.equal(2);
    for (const s of [two, three]) {
      const range = s.estimatedTimeToMergeRange!;
      expect(s.estimatedTimeToMerge).to.be.a('number');
      expect(range.low).to.be.at.most(s.estimatedTimeToMerge!);
      expect(range.high).to.be.at.least(s.estimatedTimeToMerge!);
    }
    // #3 waits for #2's round and its own.
    expect(three.estimatedTimeToMergeRange!.high).to.be.at.least(two.estimatedTimeToMergeRange!.high);

    await q.update({ state: 'paused' });
    const paused = await standing(3);
    expect(paused.position).to.equal(2);
    expect(paused).not.to.have.property('estimatedTimeToMerge');
  });
});
