// The queue's objectives, edited and saved with updateQueue's `objectives` (docs/objectives.md):
// one row per measure, on or off, with its warning and critical levels, its window and how long a
// level must hold before it is entered. What the service refuses comes back as its message.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../api/client';
import type { ObjectivesInput, QueueBody } from '../api/types';
import { queueKey, type QueueRef } from '../queue-ref';
import { FormProblems, useDraftSubmit } from './draft-form';
import { OBJECTIVE_NAMES } from './objective-names';

type Metric = QueueBody['objectives'][number]['metric'];

interface RowDraft {
  on: boolean;
  warning: string;
  critical: string;
  windowHours: string;
  forMinutes: string;
}

const METRICS = Object.keys(OBJECTIVE_NAMES) as Metric[];

/** The number cells of a row: the draft's field, how its label names it, the keyboard it wants. */
const CELLS: [Exclude<keyof RowDraft, 'on'>, string, 'decimal' | 'numeric'][] = [
  ['warning', 'warning', 'decimal'],
  ['critical', 'critical', 'decimal'],
  ['windowHours', 'window', 'numeric'],
  ['forMinutes', 'hold', 'numeric'],
];

function draftOf(objectives: QueueBody['objectives']): Record<Metric, RowDraft> {
  const set = new Map(objectives.map((o) => [o.metric, o]));
  return Object.fromEntries(
    METRICS.map((m) => {
      const o = set.get(m);
      return [
        m,
        {
          on: o !== undefined,
          warning: o ? String(o.warning) : '',
          critical: o ? String(o.critical) : '',
          windowHours: String(o?.windowHours ?? 24),
          forMinutes: String(o?.forMinutes ?? 15),
        },
      ];
    }),
  ) as Record<Metric, RowDraft>;
}

function objectivesOf(draft: Record<Metric, RowDraft>): ObjectivesInput {
  return METRICS.filter((m) => draft[m].on).map((m) => {
    const d = draft[m];
    const number = (text: string, what: string) => {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`${OBJECTIVE_NAMES[m].label}: ${what} must be a number`);
      return n;
    };
    return {
      metric: m,
      warning: number(d.warning, 'the warning level'),
      critical: number(d.critical, 'the critical level'),
      windowHours: number(d.windowHours, 'the window'),
      forMinutes: number(d.forMinutes, 'the hold'),
    };
  });
}

export function ObjectivesForm({ queueRef, objectives }: { queueRef: QueueRef; objectives: QueueBody['objectives'] }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(objectives));
  const save = useMutation({
    mutationFn: (next: ObjectivesInput) => call('updateQueue', { ...queueRef, objectives: next }),
    onSuccess: (answer) => {
      setDraft(draftOf(answer.objectives));
      void client.invalidateQueries({ queryKey: ['getQueue', queueKey(queueRef)] });
    },
  });
  const { invalid, submit } = useDraftSubmit(() => objectivesOf(draft), save.mutate);
  const setRow = (m: Metric, change: Partial<RowDraft>) => setDraft({ ...draft, [m]: { ...draft[m], ...change } });

  return (
    <form className="settings-form" onSubmit={submit} aria-label="Objectives">
      <table className="objectives-form">
        <thead>
          <tr>
            <th scope="col">Objective</th>
            <th scope="col">Warning</th>
            <th scope="col">Critical</th>
            <th scope="col">Window (h)</th>
            <th scope="col">Hold (min)</th>
          </tr>
        </thead>
        <tbody>
          {METRICS.map((m) => {
            const d = draft[m];
            const { label, unit } = OBJECTIVE_NAMES[m];
            const levels = m === 'not_its_fault_share' ? 'a fraction, 0–1' : unit;
            return (
              <tr key={m}>
                <th scope="row">
                  <label className="check">
                    <input type="checkbox" checked={d.on} onChange={(e) => setRow(m, { on: e.target.checked })} /> {label}{' '}
                    <span className="muted small">({levels})</span>
                  </label>
                </th>
                {CELLS.map(([field, name, inputMode]) => (
                  <td key={field}>
                    <input
                      aria-label={`${label}: ${name}`}
                      inputMode={inputMode}
                      disabled={!d.on}
                      value={d[field]}
                      onChange={(e) => setRow(m, { [field]: e.target.value })}
                    />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      <div>
        <button type="submit" disabled={save.isPending}>
          Save objectives
        </button>{' '}
        {save.isSuccess && <span role="status">Saved.</span>}
      </div>
      <FormProblems invalid={invalid} error={save.error} />
    </form>
  );
}
