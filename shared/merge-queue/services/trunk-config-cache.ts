// What `.trunk/trunk.yaml` says at a commit, parsed once: a file at a commit never changes, so the
// planner, the schedule watcher and readiness read a forge's file once per target head, not once
// per pass. One cache per setting read from the file.
import { LRUCache } from 'lru-cache';
import { TRUNK_CONFIG_PATH, type FileReader } from '../domain/trunk-config.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

export class TrunkConfigCache<T extends object> {
  private readonly parsed = new LRUCache<string, T>({ max: 2000 });

  constructor(private readonly parse: (text: string | null) => T) {}

  async at(repo: RepoRef, reader: FileReader<RepoRef>, sha: string): Promise<T> {
    const key = `${repoKey(repo)}@${sha}`;
    let value = this.parsed.get(key);
    if (!value) {
      value = this.parse(await reader.readFile(repo, sha, TRUNK_CONFIG_PATH));
      this.parsed.set(key, value);
    }
    return value;
  }
}
