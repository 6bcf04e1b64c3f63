// The GitHub Actions scale-out job's run (scripts/scale-out-crash.ts) where it can run here: the
// all-in-one process on the embedded store, killed with SIGKILL once a third of a simulated team's
// pull requests have merged and started again on its data directory, while CI keeps reporting.
// Afterwards nothing is merged twice, nothing untested, nothing lost (scale-out-invariants.ts).
import { expect } from 'chai';
import { runCrash } from '../../scripts/lib/scale-out-crash.js';

describe('scale-out run with a crash (embedded)', function () {
  this.timeout(300_000);

  it('merges every pull request exactly once, each onto a tree CI passed, across a SIGKILL', async () => {
    const lines: string[] = [];
    const result = await runCrash(
      { target: 'embedded', workers: 1, pullRequests: 12, ciSeconds: 1, concurrency: 3, getQueueConnections: 1, timeoutMinutes: 4 },
      (line) => lines.push(line),
    );
    // Killed mid-run, once a third had merged: the driver counts merges by polling the branch,
    // and one poll can see two merges land (a batch, or two groups), so the count it saw is 4 or more.
    expect(result.interruptedAt, lines.join('\n')).to.be.within(4, 11);
    expect(result.merged, lines.join('\n')).to.equal(12);
    const { branchUpdates, ...broken } = result.invariants;
    expect(broken).to.deep.equal({ mergedTwice: [], untested: [], notMerged: [], wrongState: [] });
    // One update of main per merge, which may carry several pull requests.
    expect(branchUpdates).to.be.within(1, 12);
    expect(result.killed).to.equal('the all-in-one process (restarted on its data directory)');
  });
});
