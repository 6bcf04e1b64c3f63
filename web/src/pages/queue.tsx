// One queue: its state and controls, the groups being tested on their predicted bases, the
// pull requests in order (a stack's members as one group), why each waiting one waits, what
// finished recently, and its settings.
// Everything polls, so a transition shows without a reload.
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { QueueWarnings } from '../components/queue-warnings';
import { Link } from 'react-router';
import { call } from '../api/client';
import type { EnqueuedPullRequest, QueueState, SubmittedPullRequest } from '../api/types';
import { useRoleOn, useSession } from '../session';
import { useQueueRef, queueKey, type QueueRef } from '../queue-ref';
import { paths } from '../links';
import { EmptyState, ErrorMessage, Loading, StateBadge } from '../components/status';
import { RunGraph } from '../components/run-graph';
import { QueueSettingsForm } from '../components/queue-settings-form';
import { QueueSettingsSummary } from '../components/queue-settings-summary';
import { MergeWindowPanel } from '../components/merge-window-panel';
import { ObjectivesPanel } from '../components/objectives-panel';
import { ago, since } from '../format';
import { reasonText } from '../reason-text';
import { groupStacks, type StackPlace } from '../stack-groups';

const POLL_MS = 2000;
const IN_FLIGHT = ['testing', 'tests_passed', 'pending_failure'];
const WEEK_MS = 7 * 24 * 3600 * 1000;
/** How many waiting pull requests get their reason looked up (one request each). */
const EXPLAINED = 25;

export function QueuePage() {
  const ref = useQueueRef();
  if (!ref) return <ErrorMessage error="This link names no queue: it needs ?repo=<host>/<owner>/<name>&branch=<branch>." />;
  return <Queue queueRef={ref} />;
}

function Queue({ queueRef }: { queueRef: QueueRef }) {
  const session = useSession().session!;
  const org = session.org;
  const role = useRoleOn(queueRef.repo);
  const isAdmin = role === 'admin';
  const key = queueKey(queueRef);
  const queue = useQuery({ queryKey: ['getQueue', key], queryFn: () => call('getQueue', queueRef), refetchInterval: POLL_MS });
  const runs = useQuery({
    queryKey: ['listTestRuns', key],
    queryFn: () => call('listTestRuns', queueRef),
    refetchInterval: POLL_MS,
  });
  const recent = useQuery({
    queryKey: ['listPullRequests', key, 'recent'],
    queryFn: () => call('listPullRequests', { ...queueRef, since: new Date(Date.now() - WEEK_MS).toISOString(), take: 20 }),
    refetchInterval: POLL_MS,
  });

  if (queue.isPending) return <Loading what="the queue" />;
  if (queue.isError) return <ErrorMessage error={queue.error} />;
  const q = queue.data;
  const entries = q.enqueuedPullRequests;
  const admitted = entries.filter((e) => e.state !== 'not_ready');
  const waiting = entries.filter((e) => e.state === 'pending' || e.state === 'not_ready');
  const active = (runs.data?.testRuns ?? []).filter((r) => r.status === 'in_progress');
  const everConcluded = (runs.data?.testRuns ?? []).some((r) => r.status !== 'in_progress');
  const prLink = (n: number) => paths.pullRequest(org, queueRef.repo, queueRef.targetBranch, n);
  const stacks = new Map<number, StackPlace>(entries.flatMap((e) => (e.stack ? [[e.prNumber, e.stack] as const] : [])));
  const position = (e: EnqueuedPullRequest) => (admitted.includes(e) ? admitted.indexOf(e) + 1 : null);

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.queues(org)}>Merge queues</Link> /
      </nav>
      <h1>
        {queueRef.repo.owner}/{queueRef.repo.name} → {queueRef.targetBranch}
      </h1>
      {session.role === 'per_repository' && role && (
        <p className="muted" data-testid="repository-role">
          Your role on this repository: <strong>{role}</strong> (from your permission on GitHub).
        </p>
      )}
      <QueueControls queueRef={queueRef} state={q.state} mode={q.mode} concurrency={q.concurrency} canChange={isAdmin} />
      <p>
        <Link to={paths.health(org, queueRef.repo, queueRef.targetBranch)}>Queue health charts</Link>
      </p>

      <QueueWarnings warnings={q.warnings} runPath={(id) => paths.testRun(org, queueRef.repo, queueRef.targetBranch, id)} />
      {q.requiredStatuses.length === 0 && (
        <section className="notice" aria-label="Setup">
          <h2>No required statuses on the queue</h2>
          <p>
            The queue takes the statuses that must pass from <code>merge.required_statuses</code> in the repository’s <code>.trunk/trunk.yaml</code>, or from
            branch protection. If neither names any, a test run fails at once with “no required statuses”: set them below or in the file.
          </p>
        </section>
      )}
      {runs.data && !everConcluded && (active.length > 0 || entries.length > 0) && (
        <section className="notice" aria-label="CI setup">
          <h2>No test run has finished yet</h2>
          <p>
            The queue tests each group on a branch named <code>trunk-merge/pr-&lt;N&gt;/&lt;run id&gt;</code>. Your CI must run on pushes to{' '}
            <code>trunk-merge/**</code> and report every required status on the branch’s head commit — through the forge’s statuses or{' '}
            <code>POST /v1/setCommitStatus</code> — before the testing timeout ({q.testingTimeoutMinutes} min).
          </p>
        </section>
      )}

      <section aria-labelledby="testing-now">
        <h2 id="testing-now">Testing now</h2>
        {active.length === 0 ? (
          <p className="muted">No group is being tested.</p>
        ) : (
          <div className="graph-scroll">
            <RunGraph
              runs={active}
              branch={queueRef.targetBranch}
              linkTo={(id) => paths.testRun(org, queueRef.repo, queueRef.targetBranch, id)}
              stackOf={(pr) => stacks.get(pr)}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="in-queue">
        <h2 id="in-queue">In the queue</h2>
        {entries.length === 0 ? (
          <EmptyState title="The queue is empty">
            <p>Submit a pull request to it (it must target {queueRef.targetBranch}):</p>
            <pre>{`curl -X POST -H "x-api-token: $TOKEN" -H 'content-type: application/json' \\
  -d '{"repo":${JSON.stringify(queueRef.repo)},"targetBranch":${JSON.stringify(queueRef.targetBranch)},"pr":{"number":1}}' \\
  ${location.origin}/v1/submitPullRequest`}</pre>
          </EmptyState>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col" className="num">
                  Position
                </th>
                <th scope="col">Pull request</th>
                <th scope="col">Author</th>
                <th scope="col">State</th>
                <th scope="col">Priority</th>
                <th scope="col">Time in state</th>
              </tr>
            </thead>
            {groupStacks(entries).map((row) =>
              row.kind === 'single' ? (
                <tbody key={row.entry.id}>
                  <EntryRow e={row.entry} position={position(row.entry)} prLink={prLink} />
                </tbody>
              ) : (
                <StackRows key={row.id} members={row.members} position={position} prLink={prLink} />
              ),
            )}
          </table>
        )}
      </section>

      {waiting.length > 0 && (
        <WaitReasons
          queueRef={queueRef}
          queueState={q.state}
          concurrency={q.concurrency}
          inFlight={entries.filter((e) => IN_FLIGHT.includes(e.state)).length}
          waiting={waiting}
          prLink={prLink}
        />
      )}

      <section aria-labelledby="recent">
        <h2 id="recent">Recently merged, failed and cancelled</h2>
        {recent.data && recent.data.pullRequests.length === 0 ? (
          <p className="muted">Nothing finished in the last 7 days.</p>
        ) : (
          <ul className="recent">
            {(recent.data?.pullRequests ?? []).map((e) => (
              <li key={e.id}>
                <StateBadge state={e.state} />{' '}
                <Link to={prLink(e.prNumber)}>
                  #{e.prNumber} {e.prTitle}
                </Link>{' '}
                <span className="muted">{ago(e.stateChangedAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <ObjectivesPanel queueRef={queueRef} objectives={q.objectives} status={q.objectiveStatus} isAdmin={isAdmin} />

      <MergeWindowPanel queueRef={queueRef} schedule={q.schedule} isAdmin={isAdmin} prLink={prLink} />

      <details className="settings">
        <summary>Settings</summary>
        {isAdmin ? <QueueSettingsForm queueRef={queueRef} settings={q} /> : <QueueSettingsSummary settings={q} />}
      </details>
    </>
  );
}

function EntryRow({ e, position, prLink }: { e: EnqueuedPullRequest; position: number | null; prLink: (n: number) => string }) {
  return (
    <tr data-pr={e.prNumber}>
      <td className="num">{position ?? '—'}</td>
      <th scope="row">
        {e.stack && <span className="stack-place">{`${e.stack.position} of ${e.stack.size} · `}</span>}
        <Link to={prLink(e.prNumber)}>
          #{e.prNumber} {e.prTitle}
        </Link>
      </th>
      <td>{e.prAuthor}</td>
      <td>
        <StateBadge state={e.state} />
      </td>
      <td>
        {e.priorityName}
        {e.skipTheLine ? ' (skips the line)' : ''}
      </td>
      <td title={e.stateChangedAt}>{since(e.stateChangedAt)}</td>
    </tr>
  );
}

/** A stack's members under one heading: they are tested as one run and land together, bottom first. */
function StackRows({
  members,
  position,
  prLink,
}: {
  members: EnqueuedPullRequest[];
  position: (e: EnqueuedPullRequest) => number | null;
  prLink: (n: number) => string;
}) {
  const chain = members.map((m) => `#${m.prNumber}`).join(' → ');
  const size = members[0]?.stack?.size ?? members.length;
  return (
    <tbody className="stack" aria-label={`Stack ${chain}`}>
      <tr className="stack-head">
        <td />
        <th scope="rowgroup" colSpan={5}>
          Stack of {size}: {chain} — tested as one run, lands bottom first
        </th>
      </tr>
      {members.map((e) => (
        <EntryRow key={e.id} e={e} position={position(e)} prLink={prLink} />
      ))}
    </tbody>
  );
}

function QueueControls({
  queueRef,
  state,
  mode,
  concurrency,
  canChange,
}: {
  queueRef: QueueRef;
  state: QueueState;
  mode: string;
  concurrency: number;
  canChange: boolean;
}) {
  const client = useQueryClient();
  const change = useMutation({
    mutationFn: (next: 'running' | 'paused' | 'draining') => call('updateQueue', { ...queueRef, state: next }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['getQueue', queueKey(queueRef)] }),
  });
  return (
    <div className="controls">
      <p>
        State:{' '}
        <span className={`badge queue-${state}`} data-testid="queue-state">
          {state.replaceAll('_', ' ')}
        </span>{' '}
        · Mode: {mode}, {concurrency} at a time
      </p>
      {canChange ? (
        <div role="group" aria-label="Queue state">
          {state !== 'running' && (
            <button type="button" onClick={() => change.mutate('running')} disabled={change.isPending}>
              Resume
            </button>
          )}
          {state !== 'paused' && (
            <button type="button" className="secondary" onClick={() => change.mutate('paused')} disabled={change.isPending}>
              Pause
            </button>
          )}
          {state !== 'draining' && (
            <button type="button" className="secondary" onClick={() => change.mutate('draining')} disabled={change.isPending}>
              Drain
            </button>
          )}
        </div>
      ) : (
        <p className="muted small">An admin can pause, drain or resume the queue.</p>
      )}
      {change.isError && <ErrorMessage error={change.error} />}
      <p className="muted small">Paused: nothing new is tested or merged. Draining: what is being tested finishes, nothing new is admitted.</p>
    </div>
  );
}

interface WaitProps {
  queueRef: QueueRef;
  queueState: QueueState;
  concurrency: number;
  inFlight: number;
  waiting: EnqueuedPullRequest[];
  prLink: (n: number) => string;
}

function WaitReasons({ queueRef, queueState, concurrency, inFlight, waiting, prLink }: WaitProps) {
  const key = queueKey(queueRef);
  const explained = waiting.slice(0, EXPLAINED);
  const details = useQueries({
    queries: explained.map((e) => ({
      queryKey: ['getSubmittedPullRequest', key, e.prNumber],
      queryFn: () => call('getSubmittedPullRequest', { ...queueRef, pr: { number: e.prNumber }, includeTimeline: true }),
      refetchInterval: POLL_MS,
    })),
  });
  const byPr = new Map(explained.map((e, i) => [e.prNumber, details[i]?.data] as const));
  const unready = (e: EnqueuedPullRequest): string[] | null => {
    const d = byPr.get(e.prNumber);
    return d ? missingReadiness(d, queueRef.targetBranch) : null;
  };
  const reasons = explained.map((e, i) => ({
    entry: e,
    why:
      (e.state === 'not_ready' && stackWait(e, waiting, unready)) || whyWaiting(e, details[i]?.data, queueState, concurrency, inFlight, queueRef.targetBranch),
  }));
  return (
    <section aria-labelledby="waiting">
      <h2 id="waiting">Why they wait</h2>
      <ul className="waiting">
        {reasons.map(({ entry, why }) => (
          <li key={entry.id}>
            <Link to={prLink(entry.prNumber)}>#{entry.prNumber}</Link> <StateBadge state={entry.state} /> {why}
          </li>
        ))}
      </ul>
      {waiting.length > EXPLAINED && <p className="muted">…and {waiting.length - EXPLAINED} more.</p>}
    </section>
  );
}

function whyWaiting(
  e: EnqueuedPullRequest,
  d: SubmittedPullRequest | undefined,
  queueState: QueueState,
  concurrency: number,
  inFlight: number,
  target: string,
): string {
  if (!d) return '…';
  if (e.state === 'not_ready') {
    const missing = missingReadiness(d, target);
    return missing.length > 0 ? `Not ready: ${missing.join('; ')}.` : 'Not ready; it will be checked again on the next update.';
  }
  if (queueState === 'paused') return 'The queue is paused.';
  if (queueState === 'draining') return 'The queue is draining: nothing new is admitted.';
  const last = d.timeline?.[0];
  const lastReason = last ? ` (last: ${reasonText(last.reason)})` : '';
  if (inFlight >= concurrency) return `Waiting for a test slot: ${inFlight} of ${concurrency} in use${lastReason}.`;
  return `Waiting for the next planning pass${lastReason}.`;
}

/** What keeps a pull request from being ready, in words (empty: nothing its readiness shows). */
function missingReadiness(d: SubmittedPullRequest, target: string): string[] {
  const r = d.readiness;
  const missing: string[] = [];
  if (!r.doesBaseBranchMatch) missing.push(`its base branch is ${d.prBaseBranch}, not ${target}`);
  if (r.gitHubMergeability === 'not_mergeable') missing.push('the forge reports it cannot be merged (conflicts or blocked)');
  if (r.gitHubMergeability === 'in_progress' || r.gitHubMergeability === 'unspecified') missing.push('the forge has not said yet whether it can be merged');
  if (r.requiresImpactedTargets && !r.hasImpactedTargets) missing.push('the queue runs in parallel mode and needs its impacted targets (setImpactedTargets)');
  return missing;
}

/**
 * A stack member waits for the first member below it that is not ready (its own readiness often
 * fails for the same cause: its branch holds that member's commits), or else, ready itself, for a
 * member above it: a stack is tested whole. Null when no other member holds it back.
 */
function stackWait(e: EnqueuedPullRequest, waiting: readonly EnqueuedPullRequest[], unready: (m: EnqueuedPullRequest) => string[] | null): string | null {
  const place = e.stack;
  if (!place) return null;
  const others = waiting
    .filter((m) => m.stack?.id === place.id && m.id !== e.id && m.state === 'not_ready')
    .sort((a, b) => a.stack!.position - b.stack!.position);
  const blocking = others.find((m) => (unready(m)?.length ?? 0) > 0);
  if (!blocking) return null;
  if (blocking.stack!.position < place.position) return `Waiting for #${blocking.prNumber} below it in its stack: ${unready(blocking)!.join('; ')}.`;
  if ((unready(e)?.length ?? 1) > 0) return null;
  return `Waiting for #${blocking.prNumber} above it in its stack to be ready: a stack is tested whole.`;
}
