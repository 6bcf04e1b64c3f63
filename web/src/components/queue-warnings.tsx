// The queue's warnings (getQueue.warnings), shown where the queue's users look first: test runs
// waiting on CI that never reports (the most common silent stall), a broken target branch, and
// pull requests held in the queue because their failure was judged the infrastructure's or the
// target branch's.
import { Link } from 'react-router';
import type { QueueWarning } from '../api/types';
import { when } from '../format';

function headline(warnings: QueueWarning[]): string {
  if (warnings.some((w) => w.code === 'target_branch_broken')) return 'The target branch is broken';
  if (warnings.some((w) => w.code === 'required_status_never_reported')) return 'CI is not reporting on the test branches';
  if (warnings.every((w) => w.code === 'failure_held_not_its_fault')) return 'Pull requests held: their failures are not their own';
  return 'Test runs are waiting for CI';
}

export function QueueWarnings({ warnings, runPath }: { warnings: QueueWarning[]; runPath: (testRunId: string) => string }) {
  if (warnings.length === 0) return null;
  return (
    <section className="notice warning" aria-label="Queue warnings" role="alert" data-testid="queue-warnings">
      <h2>{headline(warnings)}</h2>
      <ul>
        {warnings.map((w) => (
          <li key={`${w.code}-${w.testRunIds.join(',')}`}>
            <p>{w.message}</p>
            <p className="muted small">
              Since {when(w.since)}
              {w.contexts.length > 0 && (
                <>
                  {' '}
                  · missing:{' '}
                  {w.contexts.map((c) => (
                    <code key={c}>{c}</code>
                  ))}
                </>
              )}
              {w.testRunIds.length > 0 && (
                <>
                  {' '}
                  · runs:{' '}
                  {w.testRunIds.map((id) => (
                    <Link key={id} to={runPath(id)}>
                      {id.slice(0, 8)}
                    </Link>
                  ))}
                </>
              )}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
