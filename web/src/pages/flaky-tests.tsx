// A repository's failing, flaky, broken and quarantined tests, with search and an owner filter.
// The repository is named in the URL like the API's html_url does (`repo=<owner>/<name>`).
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { ApiError, call } from '../api/client';
import type { FlakyPage, RepoRef } from '../api/types';
import { useSession } from '../session';
import { parseFlakyRepo, paths } from '../links';
import { EmptyState, ErrorMessage, Loading } from '../components/status';
import { ago, percent } from '../format';

const TABS = [
  { id: 'flaky', label: 'Flaky' },
  { id: 'broken', label: 'Broken' },
  { id: 'failing', label: 'Failing (7 days)' },
  { id: 'quarantined', label: 'Quarantined' },
] as const;
type Tab = (typeof TABS)[number]['id'];
const WEEK_MS = 7 * 24 * 3600 * 1000;

interface Row {
  id: string;
  name: string;
  file?: string;
  status: string;
  codeowners: string[];
  detail: string;
}

export function FlakyTestsPage() {
  const org = useSession().session!.org;
  const [params, setParams] = useSearchParams();
  const repo = parseFlakyRepo(params);
  const tab: Tab = TABS.some((t) => t.id === params.get('tab')) ? (params.get('tab') as Tab) : 'flaky';
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: name === 'q' || name === 'owner' });
  };

  return (
    <>
      <h1>Flaky tests</h1>
      <RepoPicker repo={repo} onPick={(r) => setParams(new URLSearchParams(paths.flakyTests(org, r).split('?')[1]))} />
      {repo && (
        <>
          <div role="group" aria-label="Lists" className="tabs">
            {TABS.map((t) => (
              <button key={t.id} type="button" aria-pressed={tab === t.id} onClick={() => setParam('tab', t.id)}>
                {t.label}
              </button>
            ))}
          </div>
          <div className="filters">
            <label>
              Search <input type="search" value={params.get('q') ?? ''} onChange={(e) => setParam('q', e.target.value)} placeholder="test name or file" />
            </label>
            <label>
              Owner <input type="text" value={params.get('owner') ?? ''} onChange={(e) => setParam('owner', e.target.value)} placeholder="@team" />
            </label>
          </div>
          <TestList org={org} repo={repo} tab={tab} search={params.get('q') ?? ''} owner={params.get('owner') ?? ''} />
        </>
      )}
    </>
  );
}

function RepoPicker({ repo, onPick }: { repo: RepoRef | null; onPick: (r: RepoRef) => void }) {
  const queues = useQuery({ queryKey: ['listQueues'], queryFn: () => call('listQueues', {}) });
  const [value, setValue] = useState(repo ? `${repo.host}/${repo.owner}/${repo.name}` : '');
  const known = [...new Set((queues.data?.queues ?? []).map((q) => `${q.repo.host}/${q.repo.owner}/${q.repo.name}`))];
  function submit(e: FormEvent) {
    e.preventDefault();
    const parts = value.split('/').filter(Boolean);
    if (parts.length < 3) return;
    onPick({ host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts[parts.length - 1]! });
  }
  return (
    <form className="inline" onSubmit={submit}>
      <label htmlFor="repo">Repository (host/owner/name)</label>{' '}
      <input
        id="repo"
        list="known-repos"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder="github.com/acme/app"
        required
        pattern="[^/]+/.+/[^/]+"
      />
      <datalist id="known-repos">
        {known.map((k) => (
          <option key={k} value={k} />
        ))}
      </datalist>{' '}
      <button type="submit">Show</button>
    </form>
  );
}

function TestList({ org, repo, tab, search, owner }: { org: string; repo: RepoRef; tab: Tab; search: string; owner: string }) {
  const [token, setToken] = useState('');
  const list = useQuery({
    queryKey: ['flaky-list', repo, tab, token],
    queryFn: () => fetchList(org, repo, tab, token),
    refetchInterval: 30_000,
  });
  if (list.isPending) return <Loading what="tests" />;
  if (list.isError) {
    if (list.error instanceof ApiError && list.error.code === 'repository_not_found') {
      return (
        <EmptyState title="No test results for this repository yet">
          <p>
            Upload JUnit XML from CI to <code>POST /v1/flaky-tests/upload</code> (or with the hosted <code>trunk flakytests upload</code> CLI pointed at this
            service). Tests appear here after the first upload; flaky and broken ones once detection has seen enough runs. See docs/flaky-tests.md.
          </p>
        </EmptyState>
      );
    }
    return <ErrorMessage error={list.error} />;
  }
  const needle = search.trim().toLowerCase();
  const ownerNeedle = owner.trim().toLowerCase();
  const rows = list.data.rows.filter(
    (r) =>
      (!needle || r.name.toLowerCase().includes(needle) || (r.file ?? '').toLowerCase().includes(needle)) &&
      (!ownerNeedle || r.codeowners.some((o) => o.toLowerCase().includes(ownerNeedle))),
  );
  return (
    <section aria-label="Tests">
      <p className="muted">
        {list.data.page.total_rows} test{list.data.page.total_rows === 1 ? '' : 's'}
        {rows.length !== list.data.rows.length ? `, ${rows.length} shown on this page` : ''}
      </p>
      {rows.length === 0 ? (
        <p className="muted">No test in this list{needle || ownerNeedle ? ' matches the filters' : ''}.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Test</th>
              <th scope="col">Status</th>
              <th scope="col">Owners</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row">
                  <Link to={paths.flakyTest(org, repo, r.id)}>{r.name}</Link>
                  {r.file && <div className="muted small">{r.file}</div>}
                </th>
                <td>
                  <span className={`badge test-${r.status.toLowerCase()}`}>{r.status.toLowerCase()}</span>
                </td>
                <td>{r.codeowners.join(', ') || '—'}</td>
                <td>{r.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="pager">
        <button type="button" className="secondary" disabled={!list.data.page.prev_page_token} onClick={() => setToken(list.data.page.prev_page_token)}>
          Previous page
        </button>{' '}
        <button type="button" className="secondary" disabled={!list.data.page.next_page_token} onClick={() => setToken(list.data.page.next_page_token)}>
          Next page
        </button>
      </div>
    </section>
  );
}

async function fetchList(org: string, repo: RepoRef, tab: Tab, token: string): Promise<{ rows: Row[]; page: FlakyPage }> {
  const base = { repo, org_url_slug: org, page_query: { page_size: 100, page_token: token } };
  if (tab === 'quarantined') {
    const r = await call('flaky-tests/list-quarantined-tests', base);
    return {
      page: r.page,
      rows: r.quarantined_tests.map((t) => ({
        id: t.test_case_id,
        name: t.name,
        ...(t.file ? { file: t.file } : {}),
        status: t.status,
        codeowners: t.codeowners,
        detail: `${t.quarantine_setting === 'ALWAYS_QUARANTINE' ? 'override' : 'automatic'}, since ${ago(t.quarantined_at)}`,
      })),
    };
  }
  const r =
    tab === 'failing'
      ? await call('flaky-tests/list-failing-tests', {
          ...base,
          start_time: new Date(Date.now() - WEEK_MS + 60_000).toISOString(),
          end_time: new Date().toISOString(),
        })
      : await call('flaky-tests/list-unhealthy-tests', { ...base, status: tab });
  return {
    page: r.page,
    rows: r.tests.map((t) => ({
      id: t.id,
      name: t.name,
      ...(t.file_path ? { file: t.file_path } : {}),
      status: t.status.value,
      codeowners: t.codeowners,
      detail: [
        'failure_rate_last_7d' in t && typeof t.failure_rate_last_7d === 'number' ? `fails ${percent(t.failure_rate_last_7d)} (7 days)` : null,
        `${t.pull_requests_impacted_last_7d} PRs impacted`,
        t.quarantined ? 'quarantined' : null,
      ]
        .filter(Boolean)
        .join(' · '),
    })),
  };
}
