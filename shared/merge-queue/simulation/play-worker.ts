// A replay thread (play-pool.ts): plays one setting on a history per request and answers with the
// outcome, or with the error's message when the play threw.
import { parentPort } from 'node:worker_threads';
import type { QueueHistory } from './queue-history.js';
import { play, type FullSettings, type SettingsOutcome } from './what-if.js';

/** One play at a time per thread: the pool sends the next request after the reply. */
export interface PlayRequest {
  history: QueueHistory;
  settings: FullSettings;
}

export type PlayReply = { ok: true; outcome: SettingsOutcome } | { ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('play-worker runs as a worker thread');
port.on('message', (request: PlayRequest) => {
  play(request.history, request.settings).then(
    (outcome) => port.postMessage({ ok: true, outcome } satisfies PlayReply),
    (err: unknown) => port.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) } satisfies PlayReply),
  );
});
