// Errors raised by Koa's own stack (router, JSON body parser) are mapped by status and error
// type (api/middleware/errors.ts): a wrong or unknown method is 405 method_not_allowed on every
// router, a body the JSON parser refuses is 400 malformed_json.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';

interface ErrorBody {
  error: { code: string; message: string; details: unknown[]; requestId: string };
}

describe('HTTP errors of the router and the body parser', function () {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ startWorkers: true });
  });
  after(async () => {
    await svc.close();
  });

  it('answers 405 method_not_allowed for a wrong or unknown method on a known path of each router', async () => {
    const token = { 'x-api-token': svc.token };
    for (const [method, path] of [
      ['GET', '/v1/getQueue'],
      ['PROPFIND', '/v1/getQueue'],
      ['POST', '/healthz'],
      ['POST', '/v1/openapi.json'],
      ['GET', '/v1/flaky-tests/upload'],
    ] as const) {
      const res = await svc.raw(method, path, { headers: token });
      expect(res.status, `${method} ${path}`).to.equal(405);
      const body = res.body as ErrorBody;
      expect(body.error.code, `${method} ${path}`).to.equal('method_not_allowed');
      expect(body.error.message).to.equal('this endpoint does not accept that HTTP method');
      expect(body.error.requestId).to.equal(res.headers.get('x-request-id'));
    }
  });

  it('answers 400 malformed_json for a body the JSON parser refuses, including a __proto__ key', async () => {
    for (const body of ['{"repo": ', '[1]x', '{"__proto__": {"admin": true}}']) {
      const res = await svc.raw('POST', '/v1/getQueue', { body, headers: { 'content-type': 'application/json', 'x-api-token': svc.token } });
      expect(res.status, body).to.equal(400);
      expect((res.body as ErrorBody).error.code, body).to.equal('malformed_json');
    }
  });
});
