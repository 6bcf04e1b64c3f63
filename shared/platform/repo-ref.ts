// A repository on a forge, as both products name it: `{host, owner, name}`.

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/**
 * The case-insensitive identity of a repository. Forges treat owner and name case-insensitively,
 * so `Acme/Widgets` and `acme/widgets` name one repository and one queue.
 */
export function repoKey(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
}

/** `owner/name`, the form used by metrics labels and the metrics query parameter. */
export function repoSlug(repo: RepoRef): string {
  return `${repo.owner}/${repo.name}`;
}
