// The poll interval of GitHub repositories: slower while webhook deliveries arrive, back to normal
// when they stop, never later than one slow interval.
import { expect } from 'chai';
import { pollDue, pollIntervalSeconds, type PollIntervals } from '../../../shared/github/services/poll-schedule.js';

const intervals: PollIntervals = { normalSeconds: 5, webhookSeconds: 300, quietSeconds: 900 };
const T0 = new Date('2026-11-23T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('GitHub poll schedule', () => {
  it('polls at the normal interval without deliveries, at the slower one while they are recent', () => {
    expect(pollIntervalSeconds(null, T0, intervals)).to.equal(5);
    expect(pollIntervalSeconds(at(-1), T0, intervals)).to.equal(300);
    expect(pollIntervalSeconds(at(-899), T0, intervals)).to.equal(300);
  });

  it('falls back to the normal interval once deliveries have been quiet for the quiet time', () => {
    expect(pollIntervalSeconds(at(-900), T0, intervals)).to.equal(5);
    expect(pollIntervalSeconds(at(-3600), T0, intervals)).to.equal(5);
  });

  it('a queue never polled is due; at the normal interval every run of the poller polls, despite jitter', () => {
    expect(pollDue({ lastPolledAt: null, lastDeliveryAt: at(-1) }, T0, intervals)).to.equal(true);
    expect(pollDue({ lastPolledAt: at(-5), lastDeliveryAt: null }, T0, intervals)).to.equal(true);
    expect(pollDue({ lastPolledAt: at(-4.9), lastDeliveryAt: null }, T0, intervals), 'a run 100 ms early').to.equal(true);
    expect(pollDue({ lastPolledAt: at(-2), lastDeliveryAt: null }, T0, intervals), 'a second run within half a period').to.equal(false);
  });

  it('while deliveries arrive, a queue is due only once per slower interval (within half a poll period)', () => {
    expect(pollDue({ lastPolledAt: at(-5), lastDeliveryAt: at(-1) }, T0, intervals)).to.equal(false);
    expect(pollDue({ lastPolledAt: at(-297), lastDeliveryAt: at(-1) }, T0, intervals)).to.equal(false);
    expect(pollDue({ lastPolledAt: at(-298), lastDeliveryAt: at(-1) }, T0, intervals)).to.equal(true);
    expect(pollDue({ lastPolledAt: at(-300), lastDeliveryAt: at(-1) }, T0, intervals)).to.equal(true);
  });

  it('when deliveries stop, the next poll comes at the normal interval after the quiet time (a lost webhook delays, never wedges)', () => {
    // Polled 100 s ago in slow mode; the last delivery was 900 s ago: quiet, so normal again.
    expect(pollDue({ lastPolledAt: at(-100), lastDeliveryAt: at(-900) }, T0, intervals)).to.equal(true);
    expect(pollDue({ lastPolledAt: at(-100), lastDeliveryAt: at(-899) }, T0, intervals)).to.equal(false);
  });
});
