// The all-in-one entry point (what `npm start` runs): API and workers in one process. Works with
// the embedded database (no MONGO_URL) or a real MongoDB.
import { runEntryPoint } from '../shared/runtime/entry-point.js';
import { bootstrapOrgAndToken } from '../shared/runtime/bootstrap-token.js';
import { startHttpServer } from '../api/server.js';
import { startWorkers } from '../workers/main.js';
import { startConfiguredOperatorServer } from '../shared/metrics/operator-server.js';

await runEntryPoint('all-in-one', async (ctx) => {
  const { generatedToken } = await bootstrapOrgAndToken(ctx.store, {
    orgSlug: ctx.config.orgSlug,
    apiToken: ctx.config.apiToken,
    generateIfNone: true,
  });
  await startWorkers(ctx);
  const server = await startHttpServer(ctx);
  const operator = await startConfiguredOperatorServer(ctx);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : ctx.config.port;
  const host = ctx.config.host === '0.0.0.0' || ctx.config.host === '::' ? 'localhost' : ctx.config.host;
  const lines = [
    '',
    'openmq is running (API and workers in one process)',
    `  URL:      http://${host}:${port}/v1`,
    `  Database: ${ctx.db.kind === 'embedded' ? `embedded, data in ${ctx.config.dataDir}` : 'MongoDB (MONGO_URL)'}`,
    `  Git root: ${ctx.config.localGitRoot}`,
    `  Metrics:  ${operator ? `${operator.url}/metrics (operators only; no API token)` : 'operator endpoint disabled (OPERATOR_PORT=0)'}`,
    generatedToken
      ? `  Token:    ${generatedToken}\n            (organisation "${ctx.config.orgSlug}"; shown only this once — store it now)`
      : ctx.config.apiToken
        ? `  Token:    the value of API_TOKEN (organisation "${ctx.config.orgSlug}")`
        : `  Token:    generated at first start and not shown again; create another with \`npm run token -- create\``,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
