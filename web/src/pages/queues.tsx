// The organisation's queues: state, mode, pull requests by state and merges over the last day.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { call } from '../api/client';
import { useSession } from '../session';
import { paths, repoParam } from '../links';
import { EmptyState, ErrorMessage, Loading } from '../components/status';
import { Sparkline } from '../components/chart-canvas';

const COLUMNS = ['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure'] as const;
const HEADINGS: Record<(typeof COLUMNS)[number], string> = {
  not_ready: 'Not ready',
  pending: 'Pending',
  testing: 'Testing',
  tests_passed: 'Passed',
  pending_failure: 'Failing',
};

export function QueuesPage() {
  const { session } = useSession();
  const org = session!.org;
  const queues = useQuery({ queryKey: ['listQueues'], queryFn: () => call('listQueues', {}), refetchInterval: 5000 });

  return (
    <>
      <h1>Merge queues</h1>
      {queues.isPending ? (
        <Loading what="queues" />
      ) : queues.isError ? (
        <ErrorMessage error={queues.error} />
      ) : queues.data.queues.length === 0 ? (
        <EmptyState title="No merge queue yet">
          <p>Create one for a repository and its target branch, then submit pull requests to it:</p>
          <pre>{`curl -X POST -H "x-api-token: $TOKEN" -H 'content-type: application/json' \\
  -d '{"repo":{"host":"github.com","owner":"acme","name":"app"},"targetBranch":"main"}' \\
  ${location.origin}/v1/createQueue`}</pre>
          <p>
            Then tell the queue which CI statuses must pass (<code>updateQueue</code> with <code>requiredStatuses</code>, or{' '}
            <code>merge.required_statuses</code> in <code>.trunk/trunk.yaml</code>). See docs/queue-settings.md.
          </p>
        </EmptyState>
      ) : (
        <table>
          <caption className="visually-hidden">Queues of {org}</caption>
          <thead>
            <tr>
              <th scope="col">Repository and branch</th>
              <th scope="col">State</th>
              <th scope="col">Mode</th>
              {COLUMNS.map((c) => (
                <th scope="col" key={c} className="num">
                  {HEADINGS[c]}
                </th>
              ))}
              <th scope="col">Merged, last 24 h</th>
            </tr>
          </thead>
          <tbody>
            {queues.data.queues.map((q) => {
              const merged = q.mergedLast24h.reduce((a, b) => a + b, 0);
              return (
                <tr key={`${repoParam(q.repo)}@${q.targetBranch}`}>
                  <th scope="row">
                    <Link to={paths.queue(org, q.repo, q.targetBranch)}>
                      {q.repo.owner}/{q.repo.name} → {q.targetBranch}
                    </Link>
                    <div className="muted small">{q.repo.host}</div>
                  </th>
                  <td>
                    <span className={`badge queue-${q.state}`}>{q.state.replaceAll('_', ' ')}</span>
                  </td>
                  <td>
                    {q.mode} ×{q.concurrency}
                  </td>
                  {COLUMNS.map((c) => (
                    <td key={c} className="num">
                      {q.counts[c]}
                    </td>
                  ))}
                  <td className="spark">
                    <Sparkline values={q.mergedLast24h} label={`${merged} merged in the last 24 hours, hour by hour`} /> <span>{merged}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
