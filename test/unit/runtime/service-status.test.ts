import { expect } from 'chai';
import { serviceStatus } from '../../../shared/platform/runtime/service-status.js';

describe('service status', () => {
  it('is up when every dependency answers', () => {
    expect(serviceStatus([{ name: 'mongodb', ok: true, detail: 'ok' }]).overallStatus).to.deep.equal({
      type: 'up',
      color: 'green',
      overallStatusDescription: 'All systems operational',
    });
  });

  it('is impacted (red) naming each dependency that does not answer', () => {
    const s = serviceStatus([
      { name: 'mongodb', ok: true, detail: 'ok' },
      { name: 'redis', ok: false, detail: 'unavailable: connection refused' },
    ]);
    expect(s.overallStatus).to.deep.equal({
      type: 'impacted',
      color: 'red',
      overallStatusDescription: 'Impacted',
      impactedStatuses: [{ name: 'redis', color: 'red', statusDescription: 'unavailable: connection refused' }],
    });
    expect(s.statuses.map((x) => x.color)).to.deep.equal(['green', 'red']);
  });
});
