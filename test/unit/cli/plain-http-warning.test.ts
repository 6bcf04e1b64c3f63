// The CLI warns when the token would cross a network unencrypted (issue 22, L8). Literals only:
// nothing is resolved or contacted.
import { expect } from 'chai';
import { plainHttpWarning } from '../../../cli/api-client.js';

describe('openmq CLI: plain http warning', () => {
  it('warns for http to any host but loopback, never for https', () => {
    expect(plainHttpWarning('http://mq.example.com:8080')).to.equal(
      'warning: mq.example.com:8080 is reached over plain http — the API token travels unencrypted; use https',
    );
    expect(plainHttpWarning('http://10.0.0.5')).to.match(/^warning: 10\.0\.0\.5 is reached over plain http/);
    for (const safe of ['https://mq.example.com', 'http://localhost:8080', 'http://127.0.0.1:8080', 'http://127.4.5.6', 'http://[::1]:8080', 'not a url']) {
      expect(plainHttpWarning(safe), safe).to.equal(null);
    }
  });
});
