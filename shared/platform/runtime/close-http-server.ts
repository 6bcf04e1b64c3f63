// Closing an HTTP server gracefully. `server.close()` waits for every connection to end, and closes
// idle keep-alive sockets only once, at the call: a socket busy at that moment turns idle when its
// response finishes and would then stay open until its keep-alive timeout (65 s), well past the
// shutdown grace. So idle sockets are swept again while in-flight requests finish.
import type http from 'node:http';

const SWEEP_INTERVAL_MS = 100;

/** Stops accepting connections, lets in-flight requests finish, and resolves once all sockets are gone. */
export function closeHttpServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_INTERVAL_MS);
    sweep.unref();
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
