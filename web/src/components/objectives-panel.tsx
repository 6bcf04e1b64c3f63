// The queue's objectives on its page (docs/objectives.md): each one's level, its last measure
// against its warning and critical levels, and since when — what pages someone, seen first here.
// Admins edit them below the table.
import type { QueueBody } from '../api/types';
import type { QueueRef } from '../queue-ref';
import { OBJECTIVE_NAMES as NAMES } from './objective-names';
import { ObjectivesForm } from './objectives-form';

type Objective = QueueBody['objectives'][number];

const shown = (metric: Objective['metric'], value: number) =>
  metric === 'not_its_fault_share' ? `${Math.round(value * 100)} %` : `${Math.round(value * 10) / 10} ${NAMES[metric].unit}`;

export function ObjectivesPanel({
  queueRef,
  objectives,
  status,
  isAdmin,
}: {
  queueRef: QueueRef;
  objectives: QueueBody['objectives'];
  status: QueueBody['objectiveStatus'];
  isAdmin: boolean;
}) {
  if (objectives.length === 0 && !isAdmin) return null;
  const byMetric = new Map(status.map((s) => [s.metric, s]));
  return (
    <section aria-labelledby="objectives">
      <h2 id="objectives">Objectives</h2>
      {objectives.length === 0 ? (
        <p className="muted">No objectives: nothing pages anyone about this queue.</p>
      ) : (
        <table className="objectives">
          <thead>
            <tr>
              <th scope="col">Objective</th>
              <th scope="col">Level</th>
              <th scope="col">Measure</th>
              <th scope="col">Warning / critical</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {objectives.map((o) => {
              const s = byMetric.get(o.metric);
              const level = s?.level ?? 'ok';
              return (
                <tr key={o.metric} data-objective={o.metric}>
                  <th scope="row">
                    {NAMES[o.metric].label} <span className="muted small">over {o.windowHours} h</span>
                  </th>
                  <td>
                    <span className={`badge objective-${level}`}>{level}</span>
                    {s?.pending ? <span className="muted small"> (→ {s.pending.level})</span> : null}
                  </td>
                  <td>{s?.value === null || s?.value === undefined ? 'nothing to measure' : shown(o.metric, s.value)}</td>
                  <td>
                    {shown(o.metric, o.warning)} / {shown(o.metric, o.critical)}
                  </td>
                  <td>{s ? new Date(s.since).toLocaleString() : 'not measured yet'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {isAdmin && (
        <details className="settings">
          <summary>Edit objectives</summary>
          <ObjectivesForm queueRef={queueRef} objectives={objectives} />
        </details>
      )}
    </section>
  );
}
