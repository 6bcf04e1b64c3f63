// The flaky-tests side's events as event delivery sees them (EventFormat): their names and the
// one line a Slack endpoint gets. Their payloads are written with the change (test-events.ts), so
// there is nothing to render when they are published.
import type { EventFormat, EventPayload } from '../../platform/events/event-types.js';
import { escapeSlack } from '../../platform/events/slack-text.js';
import { TEST_EVENT_TYPES } from './test-events.js';

function testSlackText(payload: EventPayload): string {
  const repo = payload.repository as { owner: string; name: string };
  const test = payload.test as { name: string };
  const why = typeof payload.reason === 'string' ? ` — ${payload.reason}` : '';
  if (payload.type === 'test.quarantined') {
    const who = typeof payload.actor === 'string' ? ` (by ${payload.actor})` : '';
    return escapeSlack(`Test “${test.name}” of ${repo.owner}/${repo.name} is quarantined${why}${who}`);
  }
  return escapeSlack(`Test “${test.name}” of ${repo.owner}/${repo.name} is now ${String(payload.to)} (was ${String(payload.from)})${why}`);
}

export const flakyTestsEventFormat: EventFormat = { types: TEST_EVENT_TYPES, slackText: testSlackText };
