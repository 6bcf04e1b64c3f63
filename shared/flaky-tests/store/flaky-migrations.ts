// The flaky-tests side's data migrations (numbered in the service's one sequence, joined at the
// composition root): the moves of runs and hour counters that versions before blocks stored one
// per document (legacy-records.ts). They used to run inside index creation at every start-up.
import type { Migration } from '../../platform/database/migrations.js';
import { DbCaseRunRepository } from './case-run-repository.js';
import { DbHourBucketRepository } from './hour-bucket-repository.js';
import { moveLegacyCounters, moveLegacyRuns } from './legacy-records.js';

export const flakyTestsMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'flaky-runs-into-blocks',
    async up(db, logger) {
      const runs = new DbCaseRunRepository(db);
      const moved = await moveLegacyRuns(db, (upload, rows) => runs.insertBatch(upload, rows));
      if (moved > 0) logger.info({ runs: moved }, 'moved runs stored one per document into blocks');
    },
  },
  {
    version: 2,
    name: 'flaky-hour-counters-into-blocks',
    async up(db, logger) {
      const buckets = new DbHourBucketRepository(db);
      const moved = await moveLegacyCounters(db, (upload, part, rows) => buckets.insert(upload, part, rows));
      if (moved > 0) logger.info({ counters: moved }, 'moved hour counters stored one per document into blocks');
    },
  },
];
