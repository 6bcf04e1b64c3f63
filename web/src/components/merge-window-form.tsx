// The queue's merge windows, freezes and holidays, edited and saved with updateQueue's `schedule`
// (docs/merge-windows.md). Windows and holidays are lines of text; freezes are rows. Local times
// are read in the schedule's time zone; what the service cannot use comes back as its message.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../api/client';
import type { Schedule, ScheduleInput } from '../api/types';
import { queueKey, type QueueRef } from '../queue-ref';
import { FormProblems, useDraftSubmit } from './draft-form';

type Weekday = Schedule['windows'][number]['days'][number];

interface FreezeDraft {
  name: string;
  reason: string;
  kind: 'once' | 'daily';
  from: string;
  to: string;
  days: string;
  targets: string;
  paths: string;
}

const PERIOD = /^([a-z]{3}(?:\s*,\s*[a-z]{3})*)\s+(\d{2}:\d{2})\s*[-–]\s*(\d{2}:\d{2})$/i;
const HOLIDAY = /^(\d{4}-\d{2}-\d{2})\s+(.+)$/;

const periodText = (p: { days: string[]; from: string; to: string }) => `${p.days.join(',')} ${p.from}-${p.to}`;
const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

function draftOf(s: Schedule | null) {
  return {
    timeZone: s?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    windows: (s?.windows ?? []).map(periodText).join('\n'),
    freezes: (s?.freezes ?? []).map((f): FreezeDraft => ({
      name: f.name,
      reason: f.reason ?? '',
      kind: f.daily ? 'daily' : 'once',
      from: f.daily?.from ?? f.from ?? '',
      to: f.daily?.to ?? f.to ?? '',
      days: f.daily?.days.join(',') ?? '',
      targets: f.targets.join(', '),
      paths: f.paths.join(', '),
    })),
    holidays: (s?.holidays ?? []).map((h) => `${h.date} ${h.name}`).join('\n'),
    exceptPriorityAtMost: s?.exceptPriorityAtMost === null || s === null ? '' : String(s.exceptPriorityAtMost),
    exceptLabels: (s?.exceptLabels ?? []).join(', '),
    inFlightAtFreeze: s?.inFlightAtFreeze ?? 'merge',
    announceMinutes: String(s?.announceMinutes ?? 60),
  };
}
type Draft = ReturnType<typeof draftOf>;

/** The schedule the draft describes, or the first line it cannot read. */
function scheduleOf(d: Draft): ScheduleInput {
  const windows = lines(d.windows).map((line, i) => {
    const m = PERIOD.exec(line);
    if (!m) throw new Error(`Window line ${i + 1} ("${line}"): write days and hours, e.g. mon,tue,wed 09:00-17:00`);
    return { days: list(m[1]!.toLowerCase()) as Weekday[], from: m[2]!, to: m[3]! };
  });
  const holidays = lines(d.holidays).map((line, i) => {
    const m = HOLIDAY.exec(line);
    if (!m) throw new Error(`Holiday line ${i + 1} ("${line}"): write a date and a name, e.g. 2026-12-25 Christmas`);
    return { date: m[1]!, name: m[2]! };
  });
  const freezes = d.freezes.map((f) => ({
    name: f.name.trim(),
    reason: f.reason.trim() || null,
    targets: list(f.targets),
    paths: list(f.paths),
    ...(f.kind === 'daily' ? { daily: { days: list(f.days.toLowerCase()) as Weekday[], from: f.from, to: f.to } } : { from: f.from, to: f.to }),
  }));
  return {
    timeZone: d.timeZone.trim(),
    windows,
    freezes,
    holidays,
    exceptPriorityAtMost: d.exceptPriorityAtMost.trim() === '' ? null : Number(d.exceptPriorityAtMost),
    exceptLabels: list(d.exceptLabels),
    inFlightAtFreeze: d.inFlightAtFreeze,
    announceMinutes: Number(d.announceMinutes),
  };
}

const EMPTY_FREEZE: FreezeDraft = { name: '', reason: '', kind: 'once', from: '', to: '', days: '', targets: '', paths: '' };

export function MergeWindowForm({ queueRef, schedule }: { queueRef: QueueRef; schedule: Schedule | null }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(schedule));
  const save = useMutation({
    mutationFn: (next: ScheduleInput | null) => call('updateQueue', { ...queueRef, schedule: next }),
    onSuccess: (answer) => {
      setDraft(draftOf(answer.schedule));
      void client.invalidateQueries({ queryKey: ['getQueue', queueKey(queueRef)] });
      void client.invalidateQueries({ queryKey: ['getMergeWindowForecast', queueKey(queueRef)] });
    },
  });
  const { invalid, submit } = useDraftSubmit(() => scheduleOf(draft), save.mutate);
  const setFreeze = (i: number, change: Partial<FreezeDraft>) =>
    setDraft({ ...draft, freezes: draft.freezes.map((f, k) => (k === i ? { ...f, ...change } : f)) });

  return (
    <form className="settings-form" onSubmit={submit} aria-label="Merge windows">
      <label>
        Time zone (IANA, e.g. Europe/Berlin)
        <input type="text" required value={draft.timeZone} onChange={(e) => setDraft({ ...draft, timeZone: e.target.value })} />
      </label>
      <label>
        Merge windows, one per line (empty: open unless frozen)
        <textarea
          rows={3}
          placeholder="mon,tue,wed,thu,fri 09:00-17:00"
          value={draft.windows}
          onChange={(e) => setDraft({ ...draft, windows: e.target.value })}
        />
      </label>
      <fieldset>
        <legend>Freezes</legend>
        {draft.freezes.map((f, i) => (
          <div key={i} className="freeze-row" data-testid="freeze-row">
            <input aria-label="Freeze name" placeholder="name" required value={f.name} onChange={(e) => setFreeze(i, { name: e.target.value })} />
            <select aria-label="Freeze kind" value={f.kind} onChange={(e) => setFreeze(i, { kind: e.target.value as FreezeDraft['kind'], from: '', to: '' })}>
              <option value="once">once</option>
              <option value="daily">every week</option>
            </select>
            {f.kind === 'daily' && (
              <input aria-label="Freeze days" placeholder="fri,sat" value={f.days} onChange={(e) => setFreeze(i, { days: e.target.value })} />
            )}
            <input
              aria-label="Freeze from"
              type={f.kind === 'daily' ? 'time' : 'datetime-local'}
              required
              value={f.from}
              onChange={(e) => setFreeze(i, { from: e.target.value })}
            />
            <input
              aria-label="Freeze to"
              type={f.kind === 'daily' ? 'time' : 'datetime-local'}
              required
              value={f.to}
              onChange={(e) => setFreeze(i, { to: e.target.value })}
            />
            <input
              aria-label="Freeze targets"
              placeholder="targets (empty: all)"
              value={f.targets}
              onChange={(e) => setFreeze(i, { targets: e.target.value })}
            />
            <input
              aria-label="Freeze paths"
              placeholder="paths, e.g. services/api/** (empty: all)"
              value={f.paths}
              onChange={(e) => setFreeze(i, { paths: e.target.value })}
            />
            <input aria-label="Freeze reason" placeholder="reason" value={f.reason} onChange={(e) => setFreeze(i, { reason: e.target.value })} />
            <button type="button" onClick={() => setDraft({ ...draft, freezes: draft.freezes.filter((_, k) => k !== i) })}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setDraft({ ...draft, freezes: [...draft.freezes, EMPTY_FREEZE] })}>
          Add a freeze
        </button>
      </fieldset>
      <label>
        Holidays, one per line
        <textarea rows={3} placeholder="2026-12-25 Christmas" value={draft.holidays} onChange={(e) => setDraft({ ...draft, holidays: e.target.value })} />
      </label>
      <label>
        Exception: priority value at most (0: urgent; empty: none)
        <input
          type="number"
          min={0}
          max={255}
          value={draft.exceptPriorityAtMost}
          onChange={(e) => setDraft({ ...draft, exceptPriorityAtMost: e.target.value })}
        />
      </label>
      <label>
        Exception: labels, comma-separated (e.g. hotfix, incident)
        <input type="text" value={draft.exceptLabels} onChange={(e) => setDraft({ ...draft, exceptLabels: e.target.value })} />
      </label>
      <label>
        Pull requests tested when a freeze begins
        <select value={draft.inFlightAtFreeze} onChange={(e) => setDraft({ ...draft, inFlightAtFreeze: e.target.value as Draft['inFlightAtFreeze'] })}>
          <option value="merge">merge inside the freeze</option>
          <option value="hold">wait for the window</option>
        </select>
      </label>
      <label>
        Announce a freeze this many minutes ahead (0: never)
        <input type="number" min={0} required value={draft.announceMinutes} onChange={(e) => setDraft({ ...draft, announceMinutes: e.target.value })} />
      </label>
      <div>
        <button type="submit" disabled={save.isPending}>
          Save merge windows
        </button>{' '}
        {schedule && (
          <button type="button" disabled={save.isPending} onClick={() => save.mutate(null)}>
            Remove the schedule
          </button>
        )}{' '}
        {save.isSuccess && <span role="status">Saved.</span>}
      </div>
      <FormProblems invalid={invalid} error={save.error} />
    </form>
  );
}
