import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { closeHttpServer } from '../../../shared/platform/runtime/close-http-server.js';

describe('closing the HTTP server', () => {
  it('closes a keep-alive socket that was busy at the call once its response finishes', async () => {
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = http.createServer((_req, res) => {
      release = () => res.end('ok');
      entered();
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new http.Agent({ keepAlive: true });
    const { port } = server.address() as AddressInfo;
    const received = new Promise<string>((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', agent }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    // Wait until the request is in the handler, so the socket is busy when the close starts.
    await inHandler;
    const closed = closeHttpServer(server);
    release();
    expect(await received).to.equal('ok');
    // Without the sweep this waits for the 65 s keep-alive timeout and the test times out.
    await closed;
    agent.destroy();
  });
});
