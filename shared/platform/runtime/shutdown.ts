// Graceful shutdown: on SIGINT/SIGTERM, close things in order (stop taking work first, then
// connections), racing everything against a deadline so a hung close cannot keep the process up.
import type { Logger } from '../logging.js';

export interface Closer {
  name: string;
  /** Lower runs first: 10 = stop intake (HTTP, workers), 20 = producers, 30 = connections, 40 = databases. */
  order: number;
  close: () => Promise<void>;
}

export class Shutdown {
  private readonly closers: Closer[] = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly graceMs: number,
  ) {}

  add(closer: Closer): void {
    this.closers.push(closer);
  }

  /** Installs signal handlers that run the shutdown and exit. */
  installSignalHandlers(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      this.logger.info({ signal }, 'shutting down');
      void this.run().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  run(): Promise<void> {
    this.running ??= this.closeAll();
    return this.running;
  }

  private async closeAll(): Promise<void> {
    const deadline = Date.now() + this.graceMs;
    const orders = [...new Set(this.closers.map((c) => c.order))].sort((a, b) => a - b);
    let failed = false;
    for (const order of orders) {
      const group = this.closers.filter((c) => c.order === order);
      await Promise.all(
        group.map(async (c) => {
          const left = Math.max(0, deadline - Date.now());
          try {
            await Promise.race([
              c.close(),
              new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`did not close within the shutdown deadline`)), left).unref()),
            ]);
          } catch (err) {
            failed = true;
            this.logger.error({ err, component: c.name }, 'close failed');
          }
        }),
      );
    }
    if (failed) throw new Error('shutdown incomplete');
  }
}
