// The stall watchdog's findings (getQueue.warnings), shown where the queue's users look first:
// a queue that waits on CI that never runs is the most common silent stall.
import { Link } from 'react-router';
import type { QueueWarning } from '../api/types';
import { when } from '../format';

export function QueueWarnings({ warnings, runPath }: { warnings: QueueWarning[]; runPath: (testRunId: string) => string }) {
  if (warnings.length === 0) return null;
  return (
    <section className="notice warning" aria-label="Queue warnings" role="alert" data-testid="queue-warnings">
      <h2>{warnings.some((w) => w.code === 'required_status_never_reported') ? 'CI is not reporting on the test branches' : 'Test runs are waiting for CI'}</h2>
      <ul>
        {warnings.map((w) => (
          <li key={`${w.code}-${w.testRunIds.join(',')}`}>
            <p>{w.message}</p>
            <p className="muted small">
              Since {when(w.since)} · missing:{' '}
              {w.contexts.map((c) => (
                <code key={c}>{c}</code>
              ))}{' '}
              · runs:{' '}
              {w.testRunIds.map((id) => (
                <Link key={id} to={runPath(id)}>
                  {id.slice(0, 8)}
                </Link>
              ))}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
