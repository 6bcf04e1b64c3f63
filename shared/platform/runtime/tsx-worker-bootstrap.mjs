// Starts a worker thread on a TypeScript module when the service runs from its sources under tsx:
// a worker does not inherit the parent's module loader, so it registers tsx before importing the
// module named in its workerData. Compiled builds start their .js workers directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
