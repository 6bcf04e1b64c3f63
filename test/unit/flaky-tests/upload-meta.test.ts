// An upload's metadata is normalised by one rule whichever way it arrived.
import { expect } from 'chai';
import { normalizeUploadMeta } from '../../../shared/flaky-tests/domain/upload-meta.js';
import { metaFromBundle } from '../../../shared/flaky-tests/formats/bundle/bundle-upload-meta.js';
import { normalizeVariant } from '../../../shared/flaky-tests/domain/test-identity.js';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const native = {
  repo,
  orgUrlSlug: 'acme',
  sha: ' ABCDEF0123456 ',
  branch: 'b'.repeat(300),
  prNumber: 0,
  variant: '  Linux  ',
  jobName: null,
  jobUrl: null,
  ciAttempt: null,
  startedAt: null,
};

describe('upload metadata', () => {
  it('keeps the sha lower-cased, the variant normalised, a pull request only when positive, the branch at most 256 characters', () => {
    expect(normalizeUploadMeta(native)).to.deep.include({
      sha: 'abcdef0123456',
      prNumber: null,
      variant: normalizeVariant('  Linux  '),
      branch: 'b'.repeat(256),
    });
    expect(normalizeUploadMeta({ ...native, prNumber: 42 }).prNumber).to.equal(42);
  });

  it("reads a bundle's meta.json to the same rule", () => {
    const meta = metaFromBundle(
      { org: 'acme', repo: { repo, repo_head_sha: 'ABCDEF0123456', repo_head_branch: 'b'.repeat(300) }, variant: '  Linux  ', envs: { PR_NUMBER: '0' } },
      { orgSlug: 'acme', repo },
    );
    expect(meta).to.deep.include({ sha: 'abcdef0123456', prNumber: null, variant: normalizeVariant('  Linux  '), branch: 'b'.repeat(256) });
  });
});
