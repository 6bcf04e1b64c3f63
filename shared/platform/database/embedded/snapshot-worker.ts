// The compaction thread of the embedded store: folds closed journals into snapshots, one job at a
// time, off the event loop that serves requests (snapshot-folder.ts sends the jobs).
import { parentPort } from 'node:worker_threads';
import { installSnapshot, writeFoldedSnapshot, type FoldJob } from './snapshot-fold.js';

export type FoldRequest = FoldJob & { id: number };
export type FoldReply = { id: number; ok: true; bytes: number; count: number } | { id: number; ok: false; message: string };

if (parentPort) {
  const port = parentPort;
  port.on('message', (job: FoldRequest) => {
    let reply: FoldReply;
    try {
      const result = writeFoldedSnapshot(job);
      installSnapshot(job.snapshotPath);
      reply = { id: job.id, ok: true, ...result };
    } catch (err) {
      reply = { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
}
