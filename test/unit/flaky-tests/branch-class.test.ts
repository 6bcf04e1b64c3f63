import { expect } from 'chai';
import { branchPatternMatches, classifyBranch, cleanBranchName, isMergeQueueBranch, parsePrNumber } from '../../../shared/flaky-tests/domain/branch-class.js';

describe('flaky/branch-class', () => {
  it('cleans ref prefixes like the CLI', () => {
    expect(cleanBranchName('refs/heads/main')).to.equal('main');
    expect(cleanBranchName('origin/feature/x')).to.equal('feature/x');
    expect(cleanBranchName('refs/pull/12/merge')).to.equal('pull/12/merge');
    expect(cleanBranchName(null)).to.equal('');
  });

  it('recognises merge-queue branches of every supported queue', () => {
    for (const b of [
      'trunk-merge/pr-123/abc',
      'gh-readonly-queue/main/pr-42-0123456789abcdef',
      'refs/heads/gh-readonly-queue/main/pr-1-aa',
      'mergify/merge-queue/0123abcd',
      'graphite-merge/main/1',
      'gtmq_spec_123',
      'some/prefix/gtmq_x',
      'refs/merge-requests/7/train',
    ]) {
      expect(classifyBranch({ branch: b }), b).to.equal('merge_queue');
    }
    // A merge-queue run that also carries a PR number is still a merge-queue run.
    expect(classifyBranch({ branch: 'gh-readonly-queue/main/pr-42-aa', prNumber: 42 })).to.equal('merge_queue');
  });

  it('treats GitLab merge-train pipelines as merge queue whatever the branch', () => {
    expect(classifyBranch({ branch: 'main', gitlabMergeRequestEventType: 'merge_train' })).to.equal('merge_queue');
  });

  it('classifies pull requests by number or by pull/merge-request ref', () => {
    expect(classifyBranch({ branch: 'feature/x', prNumber: 17 })).to.equal('pull_request');
    expect(classifyBranch({ branch: 'feature/x', prNumber: '17' })).to.equal('pull_request');
    expect(classifyBranch({ branch: 'refs/pull/17/merge' })).to.equal('pull_request');
    expect(classifyBranch({ branch: 'remotes/pull/17/head' })).to.equal('pull_request');
    expect(classifyBranch({ branch: 'refs/merge-requests/3/head' })).to.equal('pull_request');
    // A PR build of main's merge ref with a PR number is a PR run, not a main run.
    expect(classifyBranch({ branch: 'main', prNumber: 5 })).to.equal('pull_request');
  });

  it('classifies stable branches: main/master by default, or the configured list', () => {
    expect(classifyBranch({ branch: 'refs/heads/main' })).to.equal('main');
    expect(classifyBranch({ branch: 'master' })).to.equal('main');
    expect(classifyBranch({ branch: 'develop' })).to.equal('other');
    expect(classifyBranch({ branch: 'develop', stableBranches: ['develop', 'release/*'] })).to.equal('main');
    expect(classifyBranch({ branch: 'release/2024.1', stableBranches: ['develop', 'release/*'] })).to.equal('main');
    expect(classifyBranch({ branch: 'main', stableBranches: ['develop'] })).to.equal('other');
  });

  it('ignores unusable PR numbers', () => {
    expect(parsePrNumber('')).to.equal(null);
    expect(parsePrNumber('false')).to.equal(null);
    expect(parsePrNumber(0)).to.equal(null);
    expect(parsePrNumber(' 12 ')).to.equal(12);
    expect(classifyBranch({ branch: 'feature', prNumber: '' })).to.equal('other');
    expect(classifyBranch({ branch: undefined })).to.equal('other');
  });

  it('matches branch patterns with * spanning slashes and ? one character', () => {
    expect(branchPatternMatches('trunk-merge/*', 'trunk-merge/a/b')).to.equal(true);
    expect(branchPatternMatches('release/**', 'release/1/2')).to.equal(true);
    expect(branchPatternMatches('v?.x', 'v1.x')).to.equal(true);
    expect(branchPatternMatches('v?.x', 'v10.x')).to.equal(false);
    expect(branchPatternMatches('a.b', 'axb')).to.equal(false);
    expect(isMergeQueueBranch('bors/staging', ['bors/*'])).to.equal(true);
  });
});
