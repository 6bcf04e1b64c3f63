// One test: status and why, its status history, runs per day, most common failures, owners,
// ticket, and the quarantine override with its reason. Reached from the API's html_url.
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import type { ChartConfiguration } from 'chart.js';
import { call } from '../api/client';
import type { RepoRef } from '../api/types';
import type { RequestOf } from '../../../openapi/wire';
import { useSession, useIsAdmin } from '../session';
import { externalHref, parseFlakyRepo, paths } from '../links';
import { ErrorMessage, Loading } from '../components/status';
import { ChartCanvas } from '../components/chart-canvas';
import { ago, percent, when } from '../format';

type OverrideChoice = RequestOf<'flaky-tests/set-quarantine-override'>['override'];
const OVERRIDE_CHOICES: readonly OverrideChoice[] = ['ALWAYS_QUARANTINE', 'NEVER_QUARANTINE', 'UNSPECIFIED'];
const isOverrideChoice = (value: string): value is OverrideChoice => (OVERRIDE_CHOICES as readonly string[]).includes(value);

export function FlakyTestPage() {
  const [params] = useSearchParams();
  const repo = parseFlakyRepo(params);
  const id = useParams().id ?? '';
  if (!repo) return <ErrorMessage error="This link names no repository (it needs ?repo=<owner>/<name>)." />;
  return <FlakyTestDetails repo={repo} id={id} />;
}

function FlakyTestDetails({ repo, id }: { repo: RepoRef; id: string }) {
  const org = useSession().session!.org;
  const body = { repo, org_url_slug: org, test_id: id };
  const details = useQuery({ queryKey: ['flaky-test', repo, id], queryFn: () => call('flaky-tests/get-test-details', body) });
  const history = useQuery({ queryKey: ['flaky-history', repo, id], queryFn: () => call('flaky-tests/get-test-history', body) });
  const runsChart = useMemo<ChartConfiguration | null>(
    () =>
      history.data
        ? {
            type: 'bar',
            data: {
              labels: history.data.daily_runs.map((d) => d.day.slice(5)),
              datasets: [
                { label: 'passed', data: history.data.daily_runs.map((d) => d.passed), backgroundColor: '#16a34a' },
                { label: 'failed', data: history.data.daily_runs.map((d) => d.failed), backgroundColor: '#dc2626' },
                { label: 'skipped', data: history.data.daily_runs.map((d) => d.skipped), backgroundColor: '#94a3b8' },
              ],
            },
            options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } },
          }
        : null,
    [history.data],
  );

  if (details.isPending) return <Loading what="the test" />;
  if (details.isError) return <ErrorMessage error={details.error} />;
  const t = details.data.test;

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.flakyTests(org, repo)}>
          Flaky tests of {repo.owner}/{repo.name}
        </Link>{' '}
        /
      </nav>
      <h1>{t.name}</h1>
      <p>
        <span className={`badge test-${t.status.value}`} data-testid="test-status">
          {t.status.value}
        </span>{' '}
        since {ago(t.status.timestamp)} — {t.status.reason}
        {t.quarantined && <span className="badge test-quarantined">quarantined</span>}
      </p>
      <dl className="facts">
        {t.file_path && (
          <>
            <dt>File</dt>
            <dd>
              <code>{t.file_path}</code>
            </dd>
          </>
        )}
        {t.classname && (
          <>
            <dt>Class</dt>
            <dd>{t.classname}</dd>
          </>
        )}
        <dt>Owners</dt>
        <dd>{t.codeowners.join(', ') || 'none known (upload a CODEOWNERS file with the results)'}</dd>
        <dt>Failure rate</dt>
        <dd>
          {percent(t.failure_rate_last_24h ?? 0)} last 24 h, {percent(t.failure_rate_last_7d ?? 0)} last 7 days · {t.pull_requests_impacted_last_7d} pull
          requests impacted
        </dd>
        <dt>Ticket</dt>
        <dd>
          {t.ticket && externalHref(t.ticket.html_url) ? (
            <a href={externalHref(t.ticket.html_url)} target="_blank" rel="noreferrer noopener">
              {t.ticket.html_url}
            </a>
          ) : (
            'none (link one with link-ticket-to-test-case)'
          )}
        </dd>
      </dl>

      <section aria-labelledby="run-history">
        <h2 id="run-history">Runs per day</h2>
        {runsChart ? (
          <ChartCanvas config={runsChart} label="Passed, failed and skipped runs per day" />
        ) : history.isError ? (
          <ErrorMessage error={history.error} />
        ) : (
          <Loading what="history" />
        )}
      </section>

      <section aria-labelledby="failures">
        <h2 id="failures">Most common failures (7 days)</h2>
        {(t.most_common_failures ?? []).length === 0 ? (
          <p className="muted">No failure in the last 7 days.</p>
        ) : (
          <ol className="failures">
            {t.most_common_failures!.map((f) => (
              <li key={f.summary}>
                <pre>{f.summary}</pre>
                <span className="muted">
                  {f.occurrence_count}×{f.last_occurrence ? ` · last ${ago(f.last_occurrence)}` : ''}
                </span>
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby="status-history">
        <h2 id="status-history">Status history</h2>
        {history.data && history.data.status_history.length === 0 ? (
          <p className="muted">Its status never changed.</p>
        ) : (
          <ol className="timeline">
            {(history.data?.status_history ?? []).map((c, i) => (
              <li key={i}>
                <time dateTime={c.at}>{when(c.at)}</time> {c.from} → <strong>{c.to}</strong> <span className="muted">— {c.reason}</span>
              </li>
            ))}
          </ol>
        )}
      </section>

      <QuarantineSection repo={repo} id={id} org={org} />
    </>
  );
}

function QuarantineSection({ repo, id, org }: { repo: RepoRef; id: string; org: string }) {
  const client = useQueryClient();
  const key = ['flaky-override', repo, id];
  const body = { repo, org_url_slug: org, test_id: id };
  const override = useQuery({ queryKey: key, queryFn: () => call('flaky-tests/get-quarantine-override', body) });
  const [choice, setChoice] = useState<OverrideChoice>('ALWAYS_QUARANTINE');
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const isAdmin = useIsAdmin(repo);
  const save = useMutation({
    mutationFn: () =>
      call('flaky-tests/set-quarantine-override', {
        ...body,
        override: choice,
        reason: reason.trim(),
        // datetime-local is the browser's local time; the API takes an instant.
        ...(until && choice !== 'UNSPECIFIED' ? { expires_at: new Date(until).toISOString() } : {}),
      }),
    onSuccess: (data) => {
      client.setQueryData(key, data);
      void client.invalidateQueries({ queryKey: ['flaky-test', repo, id] });
      setReason('');
      setUntil('');
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }
  return (
    <section aria-labelledby="quarantine">
      <h2 id="quarantine">Quarantine</h2>
      {override.isPending ? (
        <Loading what="the quarantine override" />
      ) : override.isError ? (
        <ErrorMessage error={override.error} />
      ) : (
        <>
          <p data-testid="override">
            Override: <strong>{override.data.override.toLowerCase().replaceAll('_', ' ')}</strong>
            {override.data.reason && ` — “${override.data.reason}” by ${override.data.updated_by}`} ·{' '}
            {override.data.quarantined ? 'quarantined now' : 'not quarantined'}
            {!override.data.quarantining_enabled && ' (quarantining is off for this repository)'}
            {override.data.expires_at && ` · until ${when(override.data.expires_at)}`}
            {override.data.released_at && ` · released from automatic quarantine ${when(override.data.released_at)} after clean days`}
          </p>
          {isAdmin ? (
            <form className="inline" onSubmit={submit}>
              <label>
                Override{' '}
                <select value={choice} onChange={(e) => isOverrideChoice(e.target.value) && setChoice(e.target.value)}>
                  <option value="ALWAYS_QUARANTINE">always quarantine</option>
                  <option value="NEVER_QUARANTINE">never quarantine</option>
                  <option value="UNSPECIFIED">automatic</option>
                </select>
              </label>{' '}
              <label>
                Reason <input type="text" required maxLength={256} value={reason} onChange={(e) => setReason(e.target.value)} />
              </label>{' '}
              <label>
                Until (optional) <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
              </label>{' '}
              <button type="submit" disabled={save.isPending}>
                Set override
              </button>
            </form>
          ) : (
            <p className="muted small">An admin can set the quarantine override.</p>
          )}
          {save.isError && <ErrorMessage error={save.error} />}
          {override.data.history.length > 0 && (
            <ul className="small">
              {override.data.history.map((h, i) => (
                <li key={i}>
                  {when(h.at)}: {h.from.toLowerCase()} → {h.to.toLowerCase()} by {h.actor} — {h.reason}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
