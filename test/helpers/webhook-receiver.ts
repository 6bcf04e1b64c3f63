// A webhook receiver on loopback: records every request, answers what the test says (a status, or
// no answer at all), and verifies signatures with the `standardwebhooks` package.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  at: number;
  headers: Record<string, string>;
  body: string;
  json: Record<string, unknown>;
}

/**
 * The service setting that lets deliveries reach receivers on 127.0.0.1, which the destination
 * policy refuses by default (docs/webhooks.md, Destinations).
 */
export const LOOPBACK_RECEIVERS_ALLOWED = { WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' } as const;

/** The status to answer the n-th request (0-based) with, or 'hang' to never answer. */
export type Responder = (request: ReceivedRequest, n: number) => number | 'hang';

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  respond: Responder;
  /** The payload verified with `secret` (throws when the signature does not verify). */
  verify(request: ReceivedRequest, secret: string): unknown;
  /** The most requests that were open at once (received, not yet answered or dropped). */
  mostInFlight: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(respond: Responder = () => 204): Promise<WebhookReceiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    respond,
    mostInFlight: 0,
    verify: (request, secret) => new Webhook(secret).verify(request.body, request.headers),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    receiver.mostInFlight = Math.max(receiver.mostInFlight, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const request: ReceivedRequest = { at: Date.now(), headers, body, json: JSON.parse(body) as Record<string, unknown> };
      const n = receiver.received.length;
      receiver.received.push(request);
      const answer = receiver.respond(request, n);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
