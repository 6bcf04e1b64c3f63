// The service's data migrations, in one sequence: each module's, joined (docs/operations.md#upgrades).
import { joinMigrations } from '../platform/database/migrations.js';
import { flakyTestsMigrations } from '../flaky-tests/store/flaky-migrations.js';

export const serviceMigrations = joinMigrations(flakyTestsMigrations);
