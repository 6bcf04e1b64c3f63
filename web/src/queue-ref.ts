// The queue a merge-queue page is about, from its URL (`repo=<host>/<owner>/<name>&branch=`).
import { useSearchParams } from 'react-router';
import type { RepoRef } from './api/types';
import { parseRepoParam } from './links';

export interface QueueRef {
  repo: RepoRef;
  targetBranch: string;
}

export function useQueueRef(): QueueRef | null {
  const [params] = useSearchParams();
  const repo = parseRepoParam(params.get('repo'));
  const branch = params.get('branch');
  return repo && branch ? { repo, targetBranch: branch } : null;
}

export const queueKey = (q: QueueRef) => `${q.repo.host}/${q.repo.owner}/${q.repo.name}@${q.targetBranch}`;
