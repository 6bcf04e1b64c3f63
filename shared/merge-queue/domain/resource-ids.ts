// Stable ids for the v2 API's repositories and pull requests: UUIDs (version 5) of the
// organisation and what they name, so every process hands out the same id for the same thing and
// no id of one organisation can name another's. Queues, entries and runs keep their own ids.
import { v5 as uuidv5 } from 'uuid';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

/** This service's namespace for its name-based UUIDs (fixed: changing it changes every id). */
const NAMESPACE = '3d7e4a52-0f6b-4c7e-9a41-6b1f2d8c5e90';

export const repositoryIdOf = (orgId: string, repo: RepoRef): string => uuidv5(`repository:${orgId}:${repoKey(repo)}`, NAMESPACE);

export const pullRequestIdOf = (orgId: string, repo: RepoRef, number: number): string => uuidv5(`pull-request:${orgId}:${repoKey(repo)}#${number}`, NAMESPACE);
