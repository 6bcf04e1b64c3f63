// The queue's settings, edited in place and saved with updateQueue (docs/queue-settings.md).
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../api/client';
import type { QueueSettings } from '../api/types';
import { queueKey, type QueueRef } from '../queue-ref';
import { ErrorMessage } from './status';

type NumberField = 'concurrency' | 'bisectionConcurrency' | 'testingTimeoutMinutes' | 'pendingFailureDepth' | 'batchingMinSize' | 'batchingMaxWaitTimeMinutes';
type BooleanField = 'batch' | 'canOptimisticallyMerge';

export const NUMBERS: { field: NumberField; label: string; min: number }[] = [
  { field: 'concurrency', label: 'Test runs at a time', min: 1 },
  { field: 'bisectionConcurrency', label: 'Bisection runs at a time', min: 1 },
  { field: 'testingTimeoutMinutes', label: 'Testing timeout (minutes, 0: none)', min: 0 },
  { field: 'pendingFailureDepth', label: 'Pending failure depth', min: 0 },
  { field: 'batchingMinSize', label: 'Smallest batch', min: 1 },
  { field: 'batchingMaxWaitTimeMinutes', label: 'Longest wait for a batch (minutes)', min: 0 },
];

export const BOOLEANS: { field: BooleanField; label: string }[] = [
  { field: 'batch', label: 'Test pull requests in batches' },
  { field: 'canOptimisticallyMerge', label: 'Merge optimistically when a later group passes' },
];

export function QueueSettingsForm({ queueRef, settings }: { queueRef: QueueRef; settings: QueueSettings }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState(() => ({
    mode: settings.mode,
    numbers: Object.fromEntries(NUMBERS.map(({ field }) => [field, String(settings[field])])) as Record<NumberField, string>,
    booleans: Object.fromEntries(BOOLEANS.map(({ field }) => [field, settings[field]])) as Record<BooleanField, boolean>,
    requiredStatuses: settings.requiredStatuses.join(', '),
  }));
  const save = useMutation({
    mutationFn: () => {
      const statuses = draft.requiredStatuses
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return call('updateQueue', {
        ...queueRef,
        mode: draft.mode,
        ...Object.fromEntries(NUMBERS.map(({ field }) => [field, Number(draft.numbers[field])])),
        ...draft.booleans,
        ...(statuses.length > 0 ? { requiredStatuses: statuses } : { deleteRequiredStatuses: true }),
      });
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['getQueue', queueKey(queueRef)] }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }

  return (
    <form className="settings-form" onSubmit={submit}>
      <label>
        Mode
        <select value={draft.mode} onChange={(e) => setDraft({ ...draft, mode: e.target.value as QueueSettings['mode'] })}>
          <option value="single">single (one lane)</option>
          <option value="parallel">parallel (lanes from impacted targets)</option>
        </select>
      </label>
      {NUMBERS.map(({ field, label, min }) => (
        <label key={field}>
          {label}
          <input
            type="number"
            min={min}
            required
            value={draft.numbers[field]}
            onChange={(e) => setDraft({ ...draft, numbers: { ...draft.numbers, [field]: e.target.value } })}
          />
        </label>
      ))}
      {BOOLEANS.map(({ field, label }) => (
        <label key={field} className="check">
          <input
            type="checkbox"
            checked={draft.booleans[field]}
            onChange={(e) => setDraft({ ...draft, booleans: { ...draft.booleans, [field]: e.target.checked } })}
          />
          {label}
        </label>
      ))}
      <label>
        Required statuses (comma-separated; empty: from .trunk/trunk.yaml or branch protection)
        <input type="text" value={draft.requiredStatuses} onChange={(e) => setDraft({ ...draft, requiredStatuses: e.target.value })} />
      </label>
      <div>
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>{' '}
        {save.isSuccess && <span role="status">Saved.</span>}
      </div>
      {save.isError && <ErrorMessage error={save.error} />}
    </form>
  );
}
