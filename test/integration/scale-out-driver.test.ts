// The scale-out benchmark's measurement (scripts/lib/scale-out-driver.ts) against a service in this
// process — what `npm run bench:scale-out -- --embedded` runs, and the part of the compose run
// that does not need docker: it builds the repository, submits, plays CI until everything is
// merged and polls getQueue meanwhile, over HTTP only.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { driveScaleOut } from '../../scripts/lib/scale-out-driver.js';

describe('scale-out benchmark: the measurement', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ startWorkers: true, env: { PROVIDER_POLL_SECONDS: '3600', RECONCILE_SECONDS: '3600' } });
  });
  after(async () => {
    await svc.close();
  });

  it('merges every submitted pull request through its simulated CI and reports the rates', async () => {
    const result = await driveScaleOut(
      { url: svc.url, token: svc.token, gitRoot: svc.gitRoot },
      { pullRequests: 6, ciSeconds: 0, concurrency: 2, getQueueConnections: 1, timeoutMinutes: 2 },
    );
    expect(result).to.include({ pullRequests: 6, merged: 6 });
    // Without batching or optimistic merging each pull request merges on a run of its own.
    expect(result.testRuns).to.be.at.least(6);
    expect(result.mergesPerMinute).to.be.greaterThan(0);
    expect(result.getQueue.requests).to.be.greaterThan(0);
    expect(result.getQueue.failed).to.equal(0);
    const { branchUpdates, ...broken } = result.invariants;
    expect(broken).to.deep.equal({ mergedTwice: [], untested: [], notMerged: [], wrongState: [] });
    // A run that passes before the one below it merged lands both in one update of main.
    expect(branchUpdates).to.be.within(1, 6);
  });
});
