// "Was it mine?": the verdict on a failed pull request's failure (docs/verdicts.md) — whose
// fault it was, the rule that decided, and for each failed test what was known of it: its
// history, and how it ended on the target branch commit the run was built on and on the pull
// request's own head.
import { Link } from 'react-router';
import type { RepoRef, Verdict } from '../api/types';
import { paths } from '../links';

const HEADLINE: Record<Verdict['kind'], string> = {
  yours: 'Its own failure',
  flaky: 'Not its fault: flaky tests',
  target_branch: 'Not its fault: the target branch fails too',
  infrastructure: 'Not its fault: infrastructure',
  interaction: 'Not its fault alone: it fails only with another pull request',
  unknown: 'Not decided',
};

const outcome = (o: 'passed' | 'failed' | null) => o ?? 'not run';

export function VerdictView({ verdict, org, repo, branch }: { verdict: Verdict; org: string; repo: RepoRef; branch: string }) {
  return (
    <section aria-labelledby="verdict" className={`verdict verdict-${verdict.kind}`} data-testid="verdict">
      <h2 id="verdict">Was it its fault? {HEADLINE[verdict.kind]}</h2>
      <p>
        {verdict.summary}.{' '}
        <span className="muted small">
          Rule <code>{verdict.rule}</code>, on{' '}
        </span>
        <Link to={paths.testRun(org, repo, branch, verdict.testRunId)}>test run {verdict.testRunId.slice(0, 8)}</Link>.
      </p>
      {verdict.interaction && (
        <p data-testid="verdict-interaction">
          It passed alone in{' '}
          <Link to={paths.testRun(org, repo, branch, verdict.interaction.aloneRunId)}>test run {verdict.interaction.aloneRunId.slice(0, 8)}</Link> and fails
          together with{' '}
          {verdict.interaction.withPrNumber === null ? (
            'another pull request of its batch'
          ) : (
            <Link to={paths.pullRequest(org, repo, branch, verdict.interaction.withPrNumber)}>#{verdict.interaction.withPrNumber}</Link>
          )}
          : the two changes cannot land together as they are.
        </p>
      )}
      {verdict.missing && <p className="muted">What would decide it: {verdict.missing}.</p>}
      {verdict.tests.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Failed test</th>
              <th scope="col">Before the run</th>
              <th scope="col">On {branch} without the change</th>
              <th scope="col">On its own head</th>
            </tr>
          </thead>
          <tbody>
            {verdict.tests.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <Link to={paths.flakyTest(org, repo, t.id)}>{t.name}</Link>
                </th>
                <td>{t.quarantined ? 'quarantined' : t.knownFlaky ? 'known flaky' : 'not known flaky'}</td>
                <td>{outcome(t.onTarget)}</td>
                <td>{outcome(t.onHead)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
