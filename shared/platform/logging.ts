// JSON logs with pino. The request id (HTTP) or job id (workers) of the current async context is
// added to every line, so one call can be followed from the API into the workers.
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

interface LogContext {
  requestId?: string;
  jobId?: string;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs fn with ids that every log line written inside it carries. */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return context.run({ ...context.getStore(), ...ctx }, fn);
}

export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}

/**
 * Values that must never reach a log, wherever a careless line puts them: API tokens, webhook and
 * signing secrets, private keys, passwords and authorization headers.
 */
const REDACTED = [
  'req.headers["x-api-token"]',
  'headers["x-api-token"]',
  'headers.authorization',
  'req.headers.authorization',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'privateKey',
  '*.privateKey',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
];

/** JSON lines to stdout, or to `destination` (tests read them). */
export function createLogger(level: LogLevel, name = 'openmq', destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => ({ ...context.getStore() }),
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
