// The scale-out checks (scripts/lib/scale-out-invariants.ts) catch what they exist for, on a
// repository whose branch updates are written by hand: a pull request merged twice, a merge onto a
// tree no passing run had, a pull request never merged, and an API that disagrees with git.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createBenchRepo } from '../../../scripts/lib/bench-repo.js';
import { checkScaleOutRun, invariantsHold } from '../../../scripts/lib/scale-out-invariants.js';
import { gitText, identityEnv } from '../../../shared/providers/local/git-runner.js';

const who = { name: 'Merger', email: 'merger@example.com' };

describe('scale-out invariants', () => {
  let root: string;
  let gitDir: string;
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'openmq-invariants-'));
    gitDir = await createBenchRepo(root, { host: 'bench.local', owner: 'o', name: 'r' }, 3);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const git = (args: string[], input?: string) =>
    gitText(args, { gitDir, env: { ...identityEnv('AUTHOR', who), ...identityEnv('COMMITTER', who) }, ...(input === undefined ? {} : { input }) });
  /** Moves main onto main + the pull requests' changes, as one update with the provider's reflog message. */
  async function merge(numbers: number[]): Promise<string> {
    let base = await git(['rev-parse', 'main']);
    const old = base;
    for (const n of numbers) {
      const tree = await git(['merge-tree', '--write-tree', base, `refs/pull/${n}/head`]);
      base = await git(['commit-tree', tree, '-p', base, '-m', `Change ${n} (#${n})`]);
    }
    await git(['update-ref', '-m', `openmq: merge ${numbers.map((n) => `#${n}`).join(', ')} (squash)`, 'refs/heads/main', base, old]);
    return base;
  }

  it('holds for merges of tested trees, each pull request once', async () => {
    const first = await merge([1]);
    const second = await merge([2, 3]);
    const v = await checkScaleOutRun({ gitDir, pullRequests: 3, passedShas: [first, second], stateOf: async () => 'merged' });
    expect(v).to.deep.equal({ branchUpdates: 2, mergedTwice: [], untested: [], notMerged: [], wrongState: [] });
    expect(invariantsHold(v)).to.equal(true);
  });

  it('names each broken invariant', async () => {
    const again = await merge([2]);
    const v = await checkScaleOutRun({ gitDir, pullRequests: 4, passedShas: [], stateOf: async (n) => (n === 3 ? 'testing' : n === 4 ? 'pending' : 'merged') });
    expect(v.mergedTwice).to.deep.equal([2]);
    // No run passed: every update of main is untested, the last one (a second merge of #2) too.
    expect(v.untested).to.have.length(3);
    expect(v.untested[2]).to.equal(`${again} (openmq: merge #2 (squash))`);
    expect(v.notMerged).to.deep.equal([4]);
    expect(v.wrongState).to.deep.equal(['#3: testing']);
    expect(invariantsHold(v)).to.equal(false);
  });
});
