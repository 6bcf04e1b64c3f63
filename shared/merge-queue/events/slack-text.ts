// What an endpoint of kind `slack` (an incoming-webhook URL) receives instead of the JSON payload
// of a merge-queue event: one readable line — what happened, to which pull request, why, and for a
// failure whose fault it was — and a link.
import type { Payload } from './event-payloads.js';
import { escapeSlack } from '../../platform/events/slack-text.js';
import { testNames } from '../domain/flaky-retest.js';
import { DIGEST_EVENT } from './event-types.js';
import type { DigestJson } from '../domain/digest.js';

const VERBS: Readonly<Record<string, string>> = {
  'pull_request.submitted': 'was submitted to the merge queue',
  'pull_request.queued': 'is queued',
  'pull_request.testing': 'is being tested',
  'pull_request.pending_failure': 'failed its tests and waits for the pull requests ahead',
  'pull_request.merged': 'was merged',
  'pull_request.failed': 'failed and left the merge queue',
  'pull_request.canceled': 'was canceled and left the merge queue',
  'pull_request_batch.testing': 'are being tested together',
  'pull_request_batch.pending_failure': 'failed their tests together and wait for the pull requests ahead',
  'pull_request_batch.merged': 'were merged together',
  'pull_request_batch.failed': 'failed their tests together',
  'pull_request_batch.canceled': 'were canceled together',
};

const REASON_KEYS = ['failure_reason', 'cancellation_reason', 'queued_reason', 'merged_reason', 'submitted_reason'];

export function mergeQueueSlackText(payload: Payload): string {
  const repo = payload.repository as { owner: string; name: string };
  const where = `${repo.owner}/${repo.name} → ${String(payload.target_branch)}`;
  const type = String(payload.type);
  if (type === 'queue.state_changed') {
    return escapeSlack(`Merge queue ${where} is now ${String(payload.state)} (was ${String(payload.previous_state)})`);
  }
  if (type === 'queue.target_broken' || type === 'queue.target_recovered') {
    const branch = String(payload.target_branch);
    const at = String(payload.target_sha).slice(0, 12);
    const tests = testNames((Array.isArray(payload.tests) ? payload.tests : []).map((name) => ({ name: String(name) })));
    return escapeSlack(
      type === 'queue.target_broken'
        ? `Merge queue ${where}: ${branch} is broken at ${at} (failing there: ${tests}); pull requests that fail only those tests wait in the queue until it is green again`
        : `Merge queue ${where}: ${branch} is green again at ${at} (no longer failing: ${tests}); pull requests held for it are tested again`,
    );
  }
  if (type.startsWith('queue.freeze_')) return escapeSlack(`Merge queue ${where}: ${freezeText(type, payload)}`);
  if (type.startsWith('queue.objective_')) return escapeSlack(`Merge queue ${where}: ${objectiveText(payload)}`);
  if (type === DIGEST_EVENT) return escapeSlack(`Merge queue ${where}: ${digestText(payload)}`);
  const reasonKey = REASON_KEYS.find((k) => typeof payload[k] === 'string');
  const why = [reasonKey ? String(payload[reasonKey]).toLowerCase().replace(/_/g, ' ') : null, typeof payload.detail === 'string' ? payload.detail : null]
    .filter((s): s is string => s !== null)
    .join(': ');
  const verb = VERBS[type] ?? type;
  const subject = Array.isArray(payload.pr_numbers)
    ? `Pull requests ${payload.pr_numbers.map((n) => `#${String(n)}`).join(', ')}`
    : `Pull request #${String(payload.pr_number)}${typeof payload.pr_title === 'string' ? ` “${payload.pr_title}”` : ''}`;
  const line = escapeSlack(`${subject} (${where}) ${verb}${why ? ` — ${why}` : ''}${verdictText(payload.verdict)}`);
  const link = typeof payload.http_details_url === 'string' ? ` <${payload.http_details_url}|details>` : '';
  return `${line}${link}`;
}

/** `2026-12-10 16:00 UTC`: an event's instants as a person reads them (the payload has no time zone). */
const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** "the freeze "release" (cut 4.2) begins at …; it lasts until …; expected to land before it: #12, #14; may land: …; will wait: #15" */
function freezeText(type: string, payload: Payload): string {
  const c = payload.closure as { kind: string; name: string; reason: string | null; startsAt: string; endsAt: string | null };
  const window = c.kind === 'outside_window';
  const what = `${c.kind === 'holiday' ? 'the holiday' : 'the freeze'} "${c.name}"${c.reason ? ` (${c.reason})` : ''}`;
  const until = c.endsAt ? `; it lasts until ${utc(c.endsAt)}` : '';
  if (type === 'queue.freeze_ended') return window ? 'the merge window is open again' : `${what} has ended; waiting pull requests go in queue order`;
  if (type === 'queue.freeze_started') return window ? `the merge window has closed${until}` : `${what} has begun${until}`;
  const forecast = (Array.isArray(payload.forecast) ? payload.forecast : []) as { prNumber: number; outcome: string }[];
  const list = (outcome: string) =>
    forecast
      .filter((f) => f.outcome === outcome)
      .map((f) => `#${f.prNumber}`)
      .join(', ') || 'none';
  const begins = window ? `the merge window closes at ${utc(c.startsAt)}` : `${what} begins at ${utc(c.startsAt)}`;
  return `${begins}${until}; expected to land before it: ${list('lands')}; may land: ${list('may_land')}; will wait: ${list('waits')}`;
}

/** "time in queue p50 is at critical: 130 minutes (warning at 60, critical at 120, over 24 h) since 2026-12-01 12:36 UTC" */
function objectiveText(payload: Payload): string {
  const o = payload.objective as {
    metric: string;
    level: string;
    value: number | null;
    unit: string;
    warning: number;
    critical: number;
    windowHours: number;
    since: string;
  };
  const value = o.value === null ? 'nothing to measure' : `${Math.round(o.value * 100) / 100} ${o.unit}`;
  const what = o.metric.replace(/_/g, ' ');
  const state = o.level === 'ok' ? 'is back within its objective' : `is at ${o.level}`;
  return `${what} ${state}: ${value} (warning at ${o.warning}, critical at ${o.critical}, over ${o.windowHours} h) since ${utc(o.since)}`;
}

/**
 * "daily digest, 2026-12-07 09:00 UTC to 2026-12-08 09:00 UTC: 42 merged (time in queue p50 35
 * min, p90 80 min); 3 ejected (yours 1, flaky 2); 120 CI runs, 1,850 CI minutes (210 wasted);
 * objectives met: time in queue p50; missed: head age (warning); costliest flaky tests:
 * checkout_total (4 runs, 95 CI min)"
 */
function digestText(payload: Payload): string {
  const d = payload.digest as DigestJson;
  const minutes = (m: number | null) => (m === null ? 'n/a' : `${Math.round(m)} min`);
  const { p50, p90 } = d.merged.timeInQueueMinutes;
  const merged = `${d.merged.count} merged${d.merged.count > 0 ? ` (time in queue p50 ${minutes(p50)}, p90 ${minutes(p90)})` : ''}`;
  const split = Object.entries(d.ejected.byVerdict)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind.replace(/_/g, ' ')} ${n}`)
    .join(', ');
  const ejected = `${d.ejected.count} ejected${split ? ` (${split})` : ''}`;
  const runs = `${d.testRuns.started} CI runs, ${Math.round(d.testRuns.ciMinutes)} CI minutes (${Math.round(d.testRuns.wastedCiMinutes)} wasted)`;
  const name = (m: string) => m.replace(/_/g, ' ');
  const met = d.objectives.filter((o) => o.met).map((o) => name(o.metric));
  const missed = d.objectives.filter((o) => !o.met).map((o) => `${name(o.metric)} (${o.level})`);
  const objectives =
    d.objectives.length === 0 ? '' : `; objectives met: ${met.join(', ') || 'none'}${missed.length > 0 ? `; missed: ${missed.join(', ')}` : ''}`;
  const flaky =
    d.flakyTests.length === 0
      ? ''
      : `; costliest flaky tests: ${d.flakyTests.map((t) => `${t.name} (${t.failedRuns} run${t.failedRuns === 1 ? '' : 's'}, ${Math.round(t.ciMinutes)} CI min)`).join(', ')}`;
  return `${d.cadence} digest, ${utc(d.from)} to ${utc(d.to)}: ${merged}; ${ejected}; ${runs}${objectives}${flaky}`;
}

/** `. Verdict: not its fault (target branch) — checkout_total failed on main at … too, without this change` */
function verdictText(verdict: unknown): string {
  if (typeof verdict !== 'object' || verdict === null) return '';
  const { kind, summary } = verdict as { kind?: unknown; summary?: unknown };
  if (typeof kind !== 'string' || typeof summary !== 'string') return '';
  const whose = kind === 'yours' ? 'its own failure' : kind === 'unknown' ? 'not decided' : `not its fault (${kind.replace(/_/g, ' ')})`;
  return `. Verdict: ${whose} — ${summary}`;
}
