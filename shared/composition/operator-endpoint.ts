// The operator listener as configured: OPERATOR_PORT and OPERATOR_HOST, or none when the port is 0.
import { startOperatorServer, type OperatorServer } from '../platform/metrics/operator-server.js';
import type { Service } from './service.js';

/** Starts the operator listener unless OPERATOR_PORT is 0 (disabled); logs where it listens. */
export async function startConfiguredOperatorServer(service: Pick<Service, 'config' | 'metrics' | 'logger' | 'shutdown'>): Promise<OperatorServer | null> {
  const { config, logger } = service;
  if (config.operatorPort === 0) {
    logger.info('operator endpoint disabled (OPERATOR_PORT=0)');
    return null;
  }
  const op = await startOperatorServer({ metrics: service.metrics, logger, shutdown: service.shutdown, port: config.operatorPort, host: config.operatorHost });
  logger.info({ url: `${op.url}/metrics` }, 'operator metrics listening');
  return op;
}
