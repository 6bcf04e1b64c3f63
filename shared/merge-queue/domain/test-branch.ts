// Test branch names (ARCHITECTURE §7): `trunk-merge/pr-<N>/<testRunId>` for one pull request,
// `trunk-merge/pr-<N1>-<N2>-…/<testRunId>` for a batch. CI triggers on pushes to trunk-merge/**.
export const TEST_BRANCH_PREFIX = 'trunk-merge/';

export function testBranchName(prNumbers: readonly number[], testRunId: string): string {
  return `${TEST_BRANCH_PREFIX}pr-${prNumbers.join('-')}/${testRunId}`;
}
