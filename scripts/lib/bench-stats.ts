// Small statistics and machine description shared by the benchmark scripts.
import os from 'node:os';

export { median, percentile } from '../../shared/merge-queue/simulation/percentile.js';

/** One line naming the machine a benchmark ran on. */
export function machineSummary(): string {
  const cpus = os.cpus();
  return `${os.cpus().length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
}
