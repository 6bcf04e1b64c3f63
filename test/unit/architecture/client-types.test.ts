// The dashboard's and the CLI's wire types are generated from the service's OpenAPI document:
// committed files that differ from what the server describes now fail here (and in `npm run
// typecheck`); `npm run generate:client` regenerates them.
import { expect } from 'chai';
import { generatedClientFiles, staleClientFiles } from '../../../scripts/generate-client-types.js';

describe('generated client types', function () {
  this.timeout(30_000);

  it('are what the server describes now', async () => {
    expect(await staleClientFiles(), 'stale: run `npm run generate:client` and commit the result').to.deep.equal([]);
  });

  it('type every operation the clients call, by its path', async () => {
    const types = (await generatedClientFiles()).find((f) => f.path.endsWith('types.ts'))!.text;
    for (const operation of ['getQueue', 'submitPullRequest', 'getSubmittedPullRequest', 'flaky-tests/list-unhealthy-tests', 'createWebhookEndpoint']) {
      expect(types, operation).to.include(`"/v1/${operation}": {`);
    }
  });
});
