// Sending one webhook request (issue 22 §2): on loopback only. The address dialled is the one the
// destination policy checked (a name is resolved by a stubbed resolver, never by DNS); an answer is
// read for at most a few KiB, redirects are not followed, and failures are described coarsely.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { DestinationPolicy, parseAllowedDestinations, type Resolver } from '../../shared/platform/events/egress/destination-policy.js';
import { MAX_ANSWER_BYTES, WebhookSender } from '../../shared/platform/events/egress/webhook-sender.js';

interface Receiver {
  url: string;
  port: number;
  requests: { host: string | undefined; method: string | undefined }[];
  /** Bytes of its answers the receiver managed to write before the sender hung up. */
  bytesWritten: () => number;
  close: () => Promise<void>;
}

async function startReceiver(answer: (res: http.ServerResponse, written: (n: number) => void) => void): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  let written = 0;
  const server = http.createServer((req, res) => {
    requests.push({ host: req.headers.host, method: req.method });
    req.resume();
    req.on('end', () => answer(res, (n) => (written += n)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    bytesWritten: () => written,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A resolver that knows one name, on loopback. */
const stubResolver: Resolver = async (hostname) => {
  if (hostname === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error(`the stub knows no ${hostname}`);
};

const loopbackAllowed = () => new DestinationPolicy(parseAllowedDestinations('127.0.0.0/8'), stubResolver);
const headers = { 'content-type': 'application/json' };

describe('webhook sender', function () {
  this.timeout(20_000);
  let receiver: Receiver | null = null;
  let sender: WebhookSender | null = null;
  afterEach(async () => {
    await sender?.close();
    await receiver?.close();
    sender = null;
    receiver = null;
  });

  it('reads at most a few KiB of an answer, however much the receiver sends', async () => {
    receiver = await startReceiver((res, written) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(512 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written(chunk.length);
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('error', () => undefined);
      pump();
    });
    sender = new WebhookSender(loopbackAllowed(), 5_000);
    const outcome = await sender.post(receiver.url, headers, '{}');
    expect(outcome).to.include({ ok: true, responseCode: 200, error: null });
    // The sender hung up after MAX_ANSWER_BYTES: what got written is what socket buffers held.
    expect(MAX_ANSWER_BYTES).to.be.at.most(4096);
    expect(receiver.bytesWritten()).to.be.below(16 * 1024 * 1024);
  });

  it('dials the address its policy checked: a name resolving to loopback is refused unless allowed, and then reaches it', async () => {
    receiver = await startReceiver((res) => res.writeHead(204).end());
    const url = `http://receiver.test:${receiver.port}/hook`;
    sender = new WebhookSender(new DestinationPolicy(undefined, stubResolver), 2_000);
    const refused = await sender.post(url, headers, '{}');
    expect(refused.ok).to.equal(false);
    expect(refused.error).to.match(/^refused: receiver\.test resolves to a loopback address \(127\.0\.0\.1\)/);
    expect(receiver.requests).to.deep.equal([]);
    await sender.close();
    sender = new WebhookSender(loopbackAllowed(), 2_000);
    const sent = await sender.post(url, headers, '{}');
    expect(sent).to.include({ ok: true, responseCode: 204 });
    expect(receiver.requests).to.deep.equal([{ host: `receiver.test:${receiver.port}`, method: 'POST' }]);
  });

  it('refuses an internal address literal before connecting', async () => {
    receiver = await startReceiver((res) => res.writeHead(204).end());
    sender = new WebhookSender(new DestinationPolicy(undefined, stubResolver), 2_000);
    const outcome = await sender.post(receiver.url, headers, '{}');
    expect(outcome.error).to.match(/^refused: the URL names a loopback address \(127\.0\.0\.1\)/);
    expect(receiver.requests).to.deep.equal([]);
  });

  it('does not follow a redirect, and describes failures coarsely: status, no answer in time, connection failed', async () => {
    receiver = await startReceiver((res) => res.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' }).end());
    sender = new WebhookSender(loopbackAllowed(), 500);
    expect(await sender.post(receiver.url, headers, '{}')).to.include({ ok: false, responseCode: 307, error: 'HTTP 307' });
    expect(receiver.requests).to.have.length(1);
    await receiver.close();

    receiver = await startReceiver(() => undefined);
    const hung = await sender.post(receiver.url, headers, '{}');
    expect(hung).to.include({ ok: false, responseCode: null, error: 'no answer within 500 ms' });
    const closedPort = receiver.port;
    await receiver.close();
    receiver = null;
    const refused = await sender.post(`http://127.0.0.1:${closedPort}/hook`, headers, '{}');
    expect(refused).to.include({ ok: false, responseCode: null, error: 'connection failed' });
  });
});
