// The JUnit results linked to a test run: how many ran and failed, and each failed test with what
// the flaky-tests side knows of it (a failure of a known-flaky or quarantined test is re-tested
// instead of ejecting the pull request).
import { Link } from 'react-router';
import type { RepoRef, RunTestResults } from '../api/types';
import { paths } from '../links';

export function RunTestResultsView({ results, org, repo }: { results: RunTestResults; org: string; repo: RepoRef }) {
  return (
    <div data-testid="test-results">
      <p>
        {results.runs} test {results.runs === 1 ? 'run' : 'runs'} in {results.uploads} {results.uploads === 1 ? 'upload' : 'uploads'}, {results.failed} failed.
      </p>
      {results.failedTests.length > 0 && (
        <ul className="failed-tests">
          {results.failedTests.map((t) => (
            <li key={t.id}>
              <Link to={paths.flakyTest(org, repo, t.id)}>{t.classname ? `${t.classname} › ${t.name}` : t.name}</Link>{' '}
              <span className={`badge test-${t.status}`}>{t.status}</span>
              {t.quarantined && <span className="badge quarantined"> quarantined</span>}
              {t.file && <span className="muted small"> {t.file}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
