// One test run: its branch and commit, what it tested on which base, the required statuses and
// what CI reported for each.
import { RunTestResultsView } from '../components/run-test-results';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { call } from '../api/client';
import { useSession } from '../session';
import { queueKey, useQueueRef } from '../queue-ref';
import { externalHref, paths } from '../links';
import { ErrorMessage, Loading } from '../components/status';
import { when } from '../format';

export function TestRunPage() {
  const ref = useQueueRef();
  const id = useParams().id ?? '';
  const org = useSession().session!.org;
  const details = useQuery({
    queryKey: ['getMergeQueueTestingDetails', ref ? queueKey(ref) : '', id],
    queryFn: () => call('getMergeQueueTestingDetails', { ...ref!, testRunId: id }),
    enabled: ref !== null,
    refetchInterval: 2000,
  });
  // The predicted base of any run (getMergeQueueTestingDetails names it only in parallel mode).
  const summaries = useQuery({
    queryKey: ['listTestRuns', ref ? queueKey(ref) : ''],
    queryFn: () => call('listTestRuns', ref!),
    enabled: ref !== null,
  });
  if (!ref) return <ErrorMessage error="This link names no queue." />;
  if (details.isPending) return <Loading what="the test run" />;
  if (details.isError) return <ErrorMessage error={details.error} />;
  const d = details.data;
  const reported = new Map(d.statusChecks.map((s) => [s.context, s]));
  const prLink = (n: number) => paths.pullRequest(org, ref.repo, ref.targetBranch, n);
  const summary = summaries.data?.testRuns.find((r) => r.id === id);
  const base = summary ? summary.basePrs : d.dependentPrs;

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.queues(org)}>Merge queues</Link> /{' '}
        <Link to={paths.queue(org, ref.repo, ref.targetBranch)}>
          {ref.repo.owner}/{ref.repo.name} → {ref.targetBranch}
        </Link>{' '}
        /
      </nav>
      <h1>Test run {id.slice(0, 8)}</h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          {d.status.replaceAll('_', ' ')}
          {summary?.kind === 'bisection' ? ' (bisection run)' : ''}
        </dd>
        <dt>Test branch</dt>
        <dd>
          <code>{d.testBranch}</code>
        </dd>
        <dt>Commit</dt>
        <dd>{d.testBranchSha ? <code>{d.testBranchSha}</code> : 'not built yet'}</dd>
        <dt>Started</dt>
        <dd>{when(d.createdAt)}</dd>
        <dt>Tested</dt>
        <dd>
          {d.testedPullRequests.map((t) => (
            <span key={t.prNumber}>
              <Link to={prLink(t.prNumber)}>
                #{t.prNumber} {t.title}
              </Link>{' '}
            </span>
          ))}
        </dd>
        <dt>On top of</dt>
        <dd>
          {base.length === 0
            ? `the head of ${ref.targetBranch}`
            : base.map((n) => (
                <span key={n}>
                  <Link to={prLink(n)}>#{n}</Link>{' '}
                </span>
              ))}
        </dd>
        {d.impactedTargets && (
          <>
            <dt>Impacted targets</dt>
            <dd>{d.impactedTargets.includes('ALL') ? 'all' : d.impactedTargets.join(', ')}</dd>
          </>
        )}
      </dl>

      <section aria-labelledby="statuses">
        <h2 id="statuses">Required statuses</h2>
        {d.requiredStatuses.length === 0 ? (
          <p className="muted">None are required{d.requiredStatusesSource ? ` (from ${d.requiredStatusesSource.replaceAll('_', ' ')})` : ''}.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Reported</th>
                <th scope="col">Link</th>
              </tr>
            </thead>
            <tbody>
              {d.requiredStatuses.map((ctx) => {
                const s = reported.get(ctx);
                return (
                  <tr key={ctx}>
                    <th scope="row">{ctx}</th>
                    <td>{s ? s.state.toLowerCase() : 'nothing yet — CI has not reported this status on the test branch'}</td>
                    <td>
                      {externalHref(s?.url) ? (
                        <a href={externalHref(s?.url)} target="_blank" rel="noreferrer noopener">
                          CI run
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {d.requiredStatusesSource && <p className="muted small">Required statuses from: {d.requiredStatusesSource.replaceAll('_', ' ')}.</p>}
      </section>

      <section aria-labelledby="test-results">
        <h2 id="test-results">Test results</h2>
        {d.testResults ? (
          <RunTestResultsView results={d.testResults} org={org} repo={ref.repo} />
        ) : (
          <p className="muted">No JUnit results are linked to this run. Upload them with the commit of the test branch head to see them here.</p>
        )}
      </section>
    </>
  );
}
