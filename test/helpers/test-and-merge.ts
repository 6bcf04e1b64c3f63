// What the provider tests do over and over: build the pull requests' test branch on the target's
// initial head and merge them with a method against the tested tree, both required to succeed.
import type { MergeMethod } from '../../shared/merge-queue/domain/model.js';
import type { GitProvider, MergePullRequest } from '../../shared/merge-queue/services/provider.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';

export async function testAndMerge(
  provider: GitProvider,
  fx: { repo: RepoRef; initialSha: string },
  prs: readonly MergePullRequest[],
  method: MergeMethod,
  branch: string,
) {
  const built = await provider.buildTestBranch(fx.repo, { branch, baseSha: fx.initialSha, pullRequests: [...prs] });
  if (!built.ok) throw new Error('test branch conflicted');
  const result = await provider.mergePullRequests(fx.repo, {
    targetBranch: 'main',
    expectedHeadSha: fx.initialSha,
    method,
    pullRequests: [...prs],
    expectedTree: built.tree,
  });
  if (!result.ok) throw new Error(`merge failed: ${JSON.stringify(result)}`);
  return { built, result };
}
