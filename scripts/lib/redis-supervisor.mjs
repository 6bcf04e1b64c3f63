// Keeps the redis-server that `npm start` owns running. On an unexpected exit it is started
// again on the same port and data directory (its clients reconnect to the same URL and find the
// jobs the AOF kept), after a backoff that doubles per consecutive failure; a server that stays
// up for `stableMs` clears the count. When `restarts` attempts in a row fail, `onGiveUp` is told
// why and supervision ends: the caller stops the service so that its own supervisor restarts it.
import { startRedis } from './redis-server.mjs';

/** "was killed by SIGKILL" / "exited with code 1: <its last log line>". */
function describeExit({ code, signal, lastLogLine }) {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return lastLogLine && !signal ? `${how}: ${lastLogLine}` : how;
}

/**
 * @param {{
 *   dataDir: string,
 *   restarts?: number,
 *   backoffMs?: number,
 *   stableMs?: number,
 *   log: (message: string) => void,
 *   onGiveUp: (message: string) => void,
 * }} options
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function superviseRedis({ dataDir, restarts = 5, backoffMs = 250, stableMs = 30_000, log, onGiveUp }) {
  let server = await startRedis({ dataDir, persistent: true });
  const { port, url } = server;
  let startedAt = Date.now();
  let stopping = false;
  let failures = 0;
  /** @type {NodeJS.Timeout | null} */
  let backoff = null;

  const watch = (watched) => {
    void watched.exited.then((exit) => {
      if (!stopping) void restart(`redis-server (pid ${watched.pid}) ${describeExit(exit)}`);
    });
  };

  async function restart(reason) {
    if (Date.now() - startedAt >= stableMs) failures = 0;
    for (;;) {
      failures++;
      if (failures > restarts) {
        onGiveUp(`${reason}; gave up after ${restarts} restarts in a row (data in ${dataDir})`);
        return;
      }
      const delay = backoffMs * 2 ** (failures - 1);
      log(`${reason}; restarting it on port ${port} in ${delay} ms (attempt ${failures} of ${restarts})`);
      await new Promise((resolve) => (backoff = setTimeout(resolve, delay)));
      backoff = null;
      if (stopping) return;
      try {
        server = await startRedis({ dataDir, persistent: true, port });
      } catch (err) {
        reason = `redis-server could not be restarted (${err instanceof Error ? err.message : String(err)})`;
        continue;
      }
      if (stopping) return server.stop();
      startedAt = Date.now();
      log(`redis-server restarted on port ${port} (pid ${server.pid})`);
      watch(server);
      return;
    }
  }

  watch(server);
  return {
    url,
    stop: async () => {
      stopping = true;
      if (backoff) clearTimeout(backoff);
      await server.stop();
    },
  };
}
