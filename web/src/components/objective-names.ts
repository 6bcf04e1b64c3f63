// How the dashboard names each objective's measure and its unit (docs/objectives.md).
import type { QueueBody } from '../api/types';

type Metric = QueueBody['objectives'][number]['metric'];

export const OBJECTIVE_NAMES: Readonly<Record<Metric, { label: string; unit: string }>> = {
  time_in_queue_p50: { label: 'Time in queue, median', unit: 'min' },
  time_in_queue_p90: { label: 'Time in queue, 90th percentile', unit: 'min' },
  head_age: { label: 'Age of the head of the queue', unit: 'min' },
  ci_runs_per_merged: { label: 'CI runs per merged pull request', unit: 'runs' },
  not_its_fault_share: { label: "Ejections not the author's fault", unit: '' },
};
