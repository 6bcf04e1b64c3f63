// The queue's merge window on its page: what holds it now, what comes next, and the forecast of
// what lands before the next closure (getMergeWindowForecast); admins edit the schedule below it.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { call } from '../api/client';
import type { Closure, Schedule } from '../api/types';
import { queueKey, type QueueRef } from '../queue-ref';
import { MergeWindowForm } from './merge-window-form';
import { ErrorMessage } from './status';

const POLL_MS = 30_000;

const OUTCOME_TEXT: Record<string, string> = {
  lands: 'expected to land',
  may_land: 'may land',
  waits: 'will wait',
  not_held: 'not held',
  unknown: 'no estimate yet',
};

const when = (iso: string | null, timeZone: string) =>
  iso === null ? 'beyond 35 days' : new Date(iso).toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });

function ClosureLine({ c, timeZone }: { c: Closure; timeZone: string }) {
  const what = c.kind === 'outside_window' ? 'Outside the merge windows' : `${c.kind === 'holiday' ? 'Holiday' : 'Freeze'} “${c.name}”`;
  return (
    <>
      {what}
      {c.reason ? ` (${c.reason})` : ''}
      {c.targets.length + c.paths.length > 0 ? ` for ${[...c.targets, ...c.paths].join(', ')}` : ''}: {when(c.startsAt, timeZone)} – {when(c.endsAt, timeZone)}
    </>
  );
}

export function MergeWindowPanel({
  queueRef,
  schedule,
  isAdmin,
  prLink,
}: {
  queueRef: QueueRef;
  schedule: Schedule | null;
  isAdmin: boolean;
  prLink: (n: number) => string;
}) {
  const forecast = useQuery({
    queryKey: ['getMergeWindowForecast', queueKey(queueRef)],
    queryFn: () => call('getMergeWindowForecast', queueRef),
    refetchInterval: POLL_MS,
    enabled: schedule !== null,
  });
  const timeZone = schedule?.timeZone ?? 'UTC';
  const f = forecast.data;
  return (
    <section aria-labelledby="merge-windows">
      <h2 id="merge-windows">Merge windows</h2>
      {schedule === null ? (
        <p className="muted">No schedule: the queue is always open.</p>
      ) : (
        <>
          {forecast.isError && <ErrorMessage error={forecast.error} />}
          {f && (
            <div data-testid="merge-window">
              <p>
                <strong>Now:</strong>{' '}
                {f.mergeWindow && f.mergeWindow.current.length > 0
                  ? f.mergeWindow.current.map((c) => <ClosureLine key={`${c.name}${c.startsAt}`} c={c} timeZone={timeZone} />)
                  : 'open'}
              </p>
              <p>
                <strong>Next:</strong> {f.closure ? <ClosureLine c={f.closure} timeZone={timeZone} /> : 'nothing within 35 days'}
              </p>
              {f.closure && f.pullRequests.length > 0 && (
                <table className="forecast">
                  <caption>Before it begins</caption>
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">Pull request</th>
                      <th scope="col">Forecast</th>
                      <th scope="col">Estimated merge</th>
                    </tr>
                  </thead>
                  <tbody>
                    {f.pullRequests.map((p) => (
                      <tr key={p.prNumber} data-pr={p.prNumber}>
                        <td className="num">{p.position}</td>
                        <th scope="row">
                          <Link to={prLink(p.prNumber)}>
                            #{p.prNumber} {p.prTitle}
                          </Link>
                        </th>
                        <td>{OUTCOME_TEXT[p.outcome] ?? p.outcome}</td>
                        <td>{p.estimatedMergeAt ? `${when(p.earliest, timeZone)} – ${when(p.latest, timeZone)}` : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          )}
        </>
      )}
      {isAdmin && (
        <details className="settings">
          <summary>Edit merge windows</summary>
          <MergeWindowForm queueRef={queueRef} schedule={schedule} />
        </details>
      )}
    </section>
  );
}
