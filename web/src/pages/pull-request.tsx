// One pull request in a queue: where it is, whether it is ready, whose fault a failure was, every
// transition with its reason in words, and the test runs it took part in with what CI reported.
import { RunTestResultsView } from '../components/run-test-results';
import { VerdictView } from '../components/verdict';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { call } from '../api/client';
import { useSession } from '../session';
import { queueKey, useQueueRef, type QueueRef } from '../queue-ref';
import { externalHref, paths } from '../links';
import { ErrorMessage, Loading, StateBadge } from '../components/status';
import { reasonText } from '../reason-text';
import { since, when } from '../format';

const POLL_MS = 2000;

export function PullRequestPage() {
  const ref = useQueueRef();
  const number = Number(useParams().number);
  if (!ref || !Number.isInteger(number)) return <ErrorMessage error="This link names no pull request of a queue." />;
  return <PullRequest queueRef={ref} number={number} />;
}

function PullRequest({ queueRef, number }: { queueRef: QueueRef; number: number }) {
  const org = useSession().session!.org;
  const key = queueKey(queueRef);
  const pr = useQuery({
    queryKey: ['getSubmittedPullRequest', key, number],
    queryFn: () => call('getSubmittedPullRequest', { ...queueRef, pr: { number }, includeTimeline: true }),
    refetchInterval: POLL_MS,
  });
  const runIds = [...new Set((pr.data?.timeline ?? []).flatMap((t) => (t.testRunId ? [t.testRunId] : [])))];
  const runs = useQueries({
    queries: runIds.map((id) => ({
      queryKey: ['getMergeQueueTestingDetails', key, id],
      queryFn: () => call('getMergeQueueTestingDetails', { ...queueRef, testRunId: id }),
      refetchInterval: POLL_MS,
    })),
  });

  if (pr.isPending) return <Loading what={`pull request #${number}`} />;
  if (pr.isError) return <ErrorMessage error={pr.error} />;
  const p = pr.data;
  const r = p.readiness;
  const checklist = [
    { ok: r.doesBaseBranchMatch, text: `Base branch is ${queueRef.targetBranch}`, detail: r.doesBaseBranchMatch ? '' : `it is ${p.prBaseBranch}` },
    { ok: r.gitHubMergeability === 'mergeable', text: 'The forge can merge it', detail: r.gitHubMergeability.replaceAll('_', ' ') },
    ...(r.requiresImpactedTargets
      ? [{ ok: r.hasImpactedTargets, text: 'Impacted targets uploaded (parallel mode)', detail: r.hasImpactedTargets ? '' : 'call setImpactedTargets from CI' }]
      : []),
  ];

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.queues(org)}>Merge queues</Link> /{' '}
        <Link to={paths.queue(org, queueRef.repo, queueRef.targetBranch)}>
          {queueRef.repo.owner}/{queueRef.repo.name} → {queueRef.targetBranch}
        </Link>{' '}
        /
      </nav>
      <h1>
        #{p.prNumber} {p.prTitle}
      </h1>
      <p>
        <StateBadge state={p.state} /> for {since(p.stateChangedAt)} · by {p.prAuthor} · priority {p.priorityName} · head <code>{p.prSha.slice(0, 12)}</code>
        {p.restartCount > 0 ? ` · restarted ${p.restartCount}×` : ''}
      </p>

      {p.verdict && <VerdictView verdict={p.verdict} org={org} repo={queueRef.repo} branch={queueRef.targetBranch} />}
      {p.waitingForMergeWindow && (
        <p className="notice" data-testid="merge-window-wait">
          Waits for a merge window: {p.waitingForMergeWindow.detail}.
        </p>
      )}

      <section aria-labelledby="readiness">
        <h2 id="readiness">Readiness</h2>
        <ul className="checklist">
          {checklist.map((c) => (
            <li key={c.text} className={c.ok ? 'ok' : 'not-ok'}>
              <span aria-hidden="true">{c.ok ? '✔' : '✘'}</span> <span className="visually-hidden">{c.ok ? 'Done:' : 'Missing:'}</span> {c.text}
              {c.detail && <span className="muted"> — {c.detail}</span>}
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol className="timeline" reversed>
          {(p.timeline ?? []).map((t, i) => (
            <li key={i}>
              <time dateTime={t.timestamp}>{when(t.timestamp)}</time> <StateBadge state={t.state} />
              <div>
                {reasonText(t.reason)} <code className="muted small">{t.reason}</code>
              </div>
              {t.detail && <div className="muted">{t.detail}</div>}
              {t.testRunId && (
                <div>
                  <Link to={paths.testRun(org, queueRef.repo, queueRef.targetBranch, t.testRunId)}>Test run {t.testRunId.slice(0, 8)}</Link>
                </div>
              )}
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby="runs">
        <h2 id="runs">Test runs</h2>
        {runIds.length === 0 ? (
          <p className="muted">It has not been tested yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Tested with</th>
                <th scope="col">CI</th>
                <th scope="col">Tests</th>
              </tr>
            </thead>
            <tbody>
              {runIds.map((id, i) => {
                const d = runs[i]?.data;
                return (
                  <tr key={id}>
                    <th scope="row">
                      <Link to={paths.testRun(org, queueRef.repo, queueRef.targetBranch, id)}>{id.slice(0, 8)}</Link>
                    </th>
                    <td>{d ? d.status.replaceAll('_', ' ') : '…'}</td>
                    <td>{d ? d.testedPullRequests.map((t) => `#${t.prNumber}`).join(', ') : ''}</td>
                    <td>
                      {d?.statusChecks.map((s) => (
                        <span key={s.context} className="check-status">
                          {externalHref(s.url) ? (
                            <a href={externalHref(s.url)} rel="noreferrer noopener" target="_blank">
                              {s.context}
                            </a>
                          ) : (
                            s.context
                          )}
                          : {s.state.toLowerCase()}{' '}
                        </span>
                      ))}
                    </td>
                    <td>{d?.testResults ? <RunTestResultsView results={d.testResults} org={org} repo={queueRef.repo} /> : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
