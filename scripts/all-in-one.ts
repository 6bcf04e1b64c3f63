// The all-in-one entry point (what `npm start` runs): API and workers in one process. Works with
// the embedded database (no MONGO_URL) or a real MongoDB.
import { runEntryPoint } from '../shared/composition/entry-point.js';
import { bootstrapOrgAndToken } from '../shared/platform/accounts/bootstrap-token.js';
import { startHttpServer } from '../api/server.js';
import { startWorkers } from '../workers/main.js';
import { startConfiguredOperatorServer } from '../shared/composition/operator-endpoint.js';

await runEntryPoint('all-in-one', async (service) => {
  const { config } = service;
  const { generatedToken } = await bootstrapOrgAndToken(service.accounts.store, {
    orgSlug: config.orgSlug,
    apiToken: config.apiToken,
    generateIfNone: true,
  });
  await startWorkers(service);
  const server = await startHttpServer(service);
  const operator = await startConfiguredOperatorServer(service);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const lines = [
    '',
    'openmq is running (API and workers in one process)',
    `  URL:      http://${host}:${port}/v1`,
    `  Database: ${service.db.kind === 'embedded' ? `embedded, data in ${config.dataDir}` : 'MongoDB (MONGO_URL)'}`,
    `  Git root: ${config.localGitRoot}`,
    `  Metrics:  ${operator ? `${operator.url}/metrics (operators only; no API token)` : 'operator endpoint disabled (OPERATOR_PORT=0)'}`,
    generatedToken
      ? `  Token:    ${generatedToken}\n            (organisation "${config.orgSlug}"; shown only this once — store it now)`
      : config.apiToken
        ? `  Token:    the value of API_TOKEN (organisation "${config.orgSlug}")`
        : `  Token:    generated at first start and not shown again; create another with \`npm run token -- create\``,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
