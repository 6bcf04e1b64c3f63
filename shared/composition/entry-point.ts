// Shared start-up of the three entry points: validate configuration, refuse an unsupported
// combination with one clear line, set how far the heap grows, open the service, install
// shutdown handlers.
import { ConfigError, loadConfig } from './config.js';
import { applyHeapGrowth } from './heap-growth.js';
import { createLogger } from '../platform/logging.js';
import { openService, type Service } from './service.js';
import { SchemaTooNewError } from '../platform/database/migrations.js';

export type EntryPointName = 'api' | 'worker' | 'all-in-one';

export async function runEntryPoint(name: EntryPointName, start: (service: Service) => Promise<void>): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${name}: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  if (name !== 'all-in-one' && !config.mongoUrl) {
    console.error(
      `${name}: MONGO_URL is required — the embedded database serves a single process, so separate api and worker processes need a shared MongoDB. Use \`npm start\` to run everything in one process with embedded defaults.`,
    );
    process.exit(2);
  }
  applyHeapGrowth(config.heapGrowingPercent);
  const logger = createLogger(config.logLevel, name);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
  let service: Service;
  try {
    service = await openService(config, { logger });
  } catch (err) {
    if (err instanceof SchemaTooNewError) {
      console.error(`${name}: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  service.shutdown.installSignalHandlers();
  await start(service);
}
