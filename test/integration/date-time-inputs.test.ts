// Every date-time input is one strict RFC 3339 format (issue 10 §8): impossible calendar dates and
// times, the leap second (a JS Date cannot hold it) and offsets a Date cannot parse are 400s naming
// the field — never a 500 from an Invalid Date further in.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { ORG, REPO, junit, upload, uploadOk } from './flaky-support.js';

interface ErrorBody {
  error: { code: string; details: { path: string; message: string }[] };
}

const INVALID = [
  '2024-19-39T29:59:59Z',
  '0000-00-00T00:00:00Z',
  '2024-01-01T23:59:60Z',
  '2024-02-30T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T00:00:00+00',
];
const VALID = ['2024-02-29T23:59:59.123+01:00', '2024-01-01T00:00:00Z', '2024-01-01 00:00:00z'];

describe('date-time inputs', function () {
  let svc: TestService;
  const queue = { repo: REPO, targetBranch: 'main' };
  const listFailing = (start_time: string, end_time: string) =>
    svc.post<ErrorBody>('/flaky-tests/list-failing-tests', { repo: REPO, org_url_slug: ORG, page_query: { page_size: 10 }, start_time, end_time });

  before(async () => {
    svc = await startTestService({ startWorkers: true });
    await uploadOk(svc, {}, [{ name: 'r.xml', data: junit({ a: 'p' }) }]);
  });
  after(async () => {
    await svc.close();
  });

  const expectRefused = (res: { status: number; body: ErrorBody }, field: string, value: string) => {
    expect(res.status, `${field}=${value}: ${JSON.stringify(res.body)}`).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
    expect(res.body.error.details.map((d) => d.path)).to.deep.equal([field]);
  };

  for (const value of INVALID) {
    it(`list-failing-tests refuses start_time and end_time ${value}`, async () => {
      expectRefused(await listFailing(value, '2024-01-02T00:00:00Z'), '/start_time', value);
      expectRefused(await listFailing('2024-01-01T00:00:00Z', value), '/end_time', value);
    });

    it(`listPullRequests refuses since ${value}`, async () => {
      expectRefused(await svc.post<ErrorBody>('/listPullRequests', { ...queue, since: value }), '/since', value);
    });

    it(`the upload refuses meta.started_at ${value}`, async () => {
      const res = await upload(svc, { started_at: value }, [{ name: 'r.xml', data: junit({ a: 'p' }) }]);
      expectRefused(res, '/started_at', value);
    });
  }

  for (const value of VALID) {
    it(`accepts ${value}`, async () => {
      // The window may span at most 7 days.
      const res = await listFailing(value, new Date(Date.parse(value) + 86_400_000).toISOString());
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      await uploadOk(svc, { started_at: value }, [{ name: 'r.xml', data: junit({ a: 'p' }) }]);
    });
  }
});
