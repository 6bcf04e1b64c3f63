// A queue's health over a chosen window: time in queue, merges per hour, failures by reason,
// CI runs per merged pull request, restarts, and the share of its commits whose exact tree was
// tested (getQueueHealth).
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import type { ChartConfiguration } from 'chart.js';
import { call } from '../api/client';
import type { QueueHealth } from '../api/types';
import { useSession } from '../session';
import { queueKey, useQueueRef } from '../queue-ref';
import { paths } from '../links';
import { ErrorMessage, Loading } from '../components/status';
import { ChartCanvas } from '../components/chart-canvas';
import { reasonText } from '../reason-text';
import { duration } from '../format';

const WINDOWS = [
  { hours: 6, label: '6 hours' },
  { hours: 24, label: '24 hours' },
  { hours: 24 * 7, label: '7 days' },
  { hours: 24 * 30, label: '30 days' },
];

const bucketLabel = (iso: string, hours: number) => {
  const d = new Date(iso);
  return hours <= 48
    ? d.toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    : d.toLocaleDateString('en', { month: 'short', day: 'numeric' });
};

/** `7 of 9 (78 %)`: the queue's commits whose exact tree was tested; a batch tests only its last. */
function testedTrees({ tested, untested }: QueueHealth['mergedCommits']): string {
  const all = tested + untested;
  return all === 0 ? '—' : `${tested} of ${all} (${Math.round((tested / all) * 100)} %)`;
}

export function HealthPage() {
  const ref = useQueueRef();
  const org = useSession().session!.org;
  const [params, setParams] = useSearchParams();
  const hours = WINDOWS.some((w) => String(w.hours) === params.get('window')) ? Number(params.get('window')) : 24;
  const health = useQuery({
    queryKey: ['getQueueHealth', ref ? queueKey(ref) : '', hours],
    queryFn: () => call('getQueueHealth', { ...ref!, windowHours: hours, buckets: 24 }),
    enabled: ref !== null,
    refetchInterval: 30_000,
  });
  const charts = useMemo(() => (health.data ? chartsOf(health.data, hours) : null), [health.data, hours]);
  if (!ref) return <ErrorMessage error="This link names no queue." />;

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.queues(org)}>Merge queues</Link> /{' '}
        <Link to={paths.queue(org, ref.repo, ref.targetBranch)}>
          {ref.repo.owner}/{ref.repo.name} → {ref.targetBranch}
        </Link>{' '}
        /
      </nav>
      <h1>Queue health</h1>
      <label className="inline">
        Window{' '}
        <select
          value={hours}
          onChange={(e) => {
            const next = new URLSearchParams(params);
            next.set('window', e.target.value);
            setParams(next);
          }}
        >
          {WINDOWS.map((w) => (
            <option key={w.hours} value={w.hours}>
              last {w.label}
            </option>
          ))}
        </select>
      </label>
      {health.isPending ? (
        <Loading what="health" />
      ) : health.isError ? (
        <ErrorMessage error={health.error} />
      ) : (
        <>
          <dl className="facts summary">
            <dt>Merged</dt>
            <dd data-testid="merged-total">{health.data.merged}</dd>
            <dt>Test runs</dt>
            <dd>{health.data.testRuns}</dd>
            <dt>CI runs per merged PR</dt>
            <dd>{health.data.ciRunsPerMergedPr === null ? '—' : health.data.ciRunsPerMergedPr.toFixed(2)}</dd>
            <dt>Failures</dt>
            <dd>{health.data.failuresByReason.reduce((n, f) => n + f.count, 0)}</dd>
            <dt>
              <abbr title="Commits the queue put on the target branch whose exact tree passed the required checks">Tested trees</abbr>
            </dt>
            <dd data-testid="tested-trees">{testedTrees(health.data.mergedCommits)}</dd>
          </dl>
          {health.data.merged === 0 && health.data.testRuns === 0 && (
            <p className="notice">Nothing happened in this window. Charts fill in as pull requests are tested and merged.</p>
          )}
          <div className="charts">
            <figure>
              <figcaption>Time in queue (p50, p90) of merged pull requests, minutes</figcaption>
              <ChartCanvas config={charts!.timeInQueue} label="Time in queue, 50th and 90th percentile" />
            </figure>
            <figure>
              <figcaption>Merges per hour</figcaption>
              <ChartCanvas config={charts!.merges} label="Merges per hour" />
            </figure>
            <figure>
              <figcaption>Failures by reason</figcaption>
              {health.data.failuresByReason.length === 0 ? (
                <p className="muted">No failure in this window.</p>
              ) : (
                <ChartCanvas config={charts!.failures} label="Failures by reason" />
              )}
            </figure>
            <figure>
              <figcaption>CI runs per merged pull request</figcaption>
              <ChartCanvas config={charts!.ciRuns} label="CI runs per merged pull request" />
            </figure>
            <figure>
              <figcaption>Restarts</figcaption>
              <ChartCanvas config={charts!.restarts} label="Restarts" />
            </figure>
          </div>
          {health.data.failuresByReason.length > 0 && (
            <table>
              <caption>Failures by reason</caption>
              <thead>
                <tr>
                  <th scope="col">Reason</th>
                  <th scope="col" className="num">
                    Count
                  </th>
                </tr>
              </thead>
              <tbody>
                {health.data.failuresByReason.map((f) => (
                  <tr key={f.reason}>
                    <th scope="row">{reasonText(f.reason)}</th>
                    <td className="num">{f.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p className="muted small">Buckets of {duration(health.data.bucketSeconds)}.</p>
        </>
      )}
    </>
  );
}

function chartsOf(h: QueueHealth, hours: number): Record<'timeInQueue' | 'merges' | 'failures' | 'ciRuns' | 'restarts', ChartConfiguration> {
  const labels = h.buckets.map((b) => bucketLabel(b.start, hours));
  const bucketHours = h.bucketSeconds / 3600;
  const minutes = (s: number | null) => (s === null ? null : s / 60);
  const axis = { y: { beginAtZero: true } };
  return {
    timeInQueue: {
      type: 'line',
      data: {
        labels,
        datasets: [
          { label: 'p50', data: h.buckets.map((b) => minutes(b.timeInQueueP50)), borderColor: '#2563eb', spanGaps: true },
          { label: 'p90', data: h.buckets.map((b) => minutes(b.timeInQueueP90)), borderColor: '#f59e0b', spanGaps: true },
        ],
      },
      options: { scales: axis },
    },
    merges: {
      type: 'bar',
      data: { labels, datasets: [{ label: 'merges per hour', data: h.buckets.map((b) => b.merged / bucketHours), backgroundColor: '#16a34a' }] },
      options: { scales: axis, plugins: { legend: { display: false } } },
    },
    failures: {
      type: 'bar',
      data: {
        labels: h.failuresByReason.map((f) => f.reason.replaceAll('_', ' ')),
        datasets: [{ label: 'failures', data: h.failuresByReason.map((f) => f.count), backgroundColor: '#dc2626' }],
      },
      options: { indexAxis: 'y', scales: { x: { beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { display: false } } },
    },
    ciRuns: {
      type: 'line',
      data: {
        labels,
        datasets: [
          { label: 'runs per merge', data: h.buckets.map((b) => (b.merged === 0 ? null : b.testRuns / b.merged)), borderColor: '#7c3aed', spanGaps: true },
        ],
      },
      options: { scales: axis, plugins: { legend: { display: false } } },
    },
    restarts: {
      type: 'bar',
      data: { labels, datasets: [{ label: 'restarts', data: h.buckets.map((b) => b.restarts), backgroundColor: '#ea580c' }] },
      options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { display: false } } },
    },
  };
}
