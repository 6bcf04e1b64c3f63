// The queue's objectives on its page (docs/objectives.md): each one's level, its last measure
// against its warning and critical levels, and since when — what pages someone, seen first here.
import type { QueueBody } from '../api/types';

type Objective = QueueBody['objectives'][number];

const NAMES: Record<Objective['metric'], { label: string; unit: string }> = {
  time_in_queue_p50: { label: 'Time in queue, median', unit: 'min' },
  time_in_queue_p90: { label: 'Time in queue, 90th percentile', unit: 'min' },
  head_age: { label: 'Age of the head of the queue', unit: 'min' },
  ci_runs_per_merged: { label: 'CI runs per merged pull request', unit: 'runs' },
  not_its_fault_share: { label: "Ejections not the author's fault", unit: '' },
};

const shown = (metric: Objective['metric'], value: number) =>
  metric === 'not_its_fault_share' ? `${Math.round(value * 100)} %` : `${Math.round(value * 10) / 10} ${NAMES[metric].unit}`;

export function ObjectivesPanel({ objectives, status }: { objectives: QueueBody['objectives']; status: QueueBody['objectiveStatus'] }) {
  if (objectives.length === 0) return null;
  const byMetric = new Map(status.map((s) => [s.metric, s]));
  return (
    <section aria-labelledby="objectives">
      <h2 id="objectives">Objectives</h2>
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
    </section>
  );
}
