// The CLI's way to the v2 API: a client generated from the contract (openapi-fetch over
// openapi/v2/types.ts), with the key as Authorization: Bearer. As with v1, a redirect is reported
// and never followed, so the key only ever goes to the service's own origin. Queues and pull
// requests are found by id through the v2 lookups (repository by URL, queue by repository and
// branch, pull request by number).
import createClient from 'openapi-fetch';
import type { paths } from '../openapi/v2/types.js';
import { CliError, EXIT, exitCodeOfStatus } from './cli-error.js';

/** A repository as --repo names it. */
interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

interface V2Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class V2Api {
  private readonly client: ReturnType<typeof createClient<paths>>;

  constructor(
    private readonly baseUrl: string,
    token: string,
  ) {
    this.client = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${token}`, 'user-agent': 'openmq-cli' },
      fetch: (request: Request) => fetch(new Request(request, { redirect: 'manual' })),
    });
  }

  private async unwrap<T>(what: string, call: Promise<V2Result<T>>): Promise<T> {
    let result: V2Result<T>;
    try {
      result = await call;
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
      throw new CliError(EXIT.failed, `cannot reach openmq at ${this.baseUrl}: ${cause}`);
    }
    const { response } = result;
    if (response.status >= 300 && response.status < 400) {
      throw new CliError(
        EXIT.failed,
        `the service at ${this.baseUrl} redirected ${what} (HTTP ${response.status}); the key was not sent on — use the service's own URL as --url`,
      );
    }
    if (!response.ok) {
      const error = (result.error as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new CliError(
        exitCodeOfStatus(response.status),
        `${what} failed — ${error ? `${error.code ?? 'error'}: ${error.message ?? ''}` : `HTTP ${response.status}`}`,
      );
    }
    return result.data as T;
  }

  /** The queue of a repository's branch. */
  async queueId(repo: RepoRef, branch: string): Promise<string> {
    const providerUrl = `https://${repo.host}/${repo.owner}/${repo.name}`;
    const repos = await this.unwrap('finding the repository', this.client.GET('/v2/repositories', { params: { query: { providerUrl } } }));
    const repositoryId = repos.data[0]?.id;
    if (!repositoryId) throw new CliError(EXIT.notFound, `no repository at ${providerUrl}`);
    const queues = await this.unwrap('finding the queue', this.client.GET('/v2/merge-queues', { params: { query: { repositoryId, targetBranch: branch } } }));
    const id = queues.data[0]?.id;
    if (!id) throw new CliError(EXIT.notFound, `no merge queue for branch "${branch}" of ${repo.owner}/${repo.name}`);
    return id;
  }

  /** The id of pull request `number` of a repository. */
  async pullRequestId(repo: RepoRef, number: number): Promise<string> {
    const providerUrl = `https://${repo.host}/${repo.owner}/${repo.name}`;
    const repos = await this.unwrap('finding the repository', this.client.GET('/v2/repositories', { params: { query: { providerUrl } } }));
    const repositoryId = repos.data[0]?.id ?? '';
    const prs = await this.unwrap(
      'finding the pull request',
      this.client.GET('/v2/pull-requests', { params: { query: { repositoryId, number: String(number) } } }),
    );
    const id = prs.data[0]?.id;
    if (!id) throw new CliError(EXIT.notFound, `no pull request #${number} in ${repo.owner}/${repo.name}`);
    return id;
  }

  async submit(queueId: string, body: { number: number; priorityValue?: number; priorityName?: string; allowBatching?: boolean }) {
    return this.unwrap('mergeQueues.submitPullRequest', this.client.POST('/v2/merge-queues/{id}/pull-requests', { params: { path: { id: queueId } }, body }));
  }

  async dequeue(pullRequestId: string) {
    return this.unwrap('pullRequests.dequeue', this.client.POST('/v2/pull-requests/{id}/dequeue', { params: { path: { id: pullRequestId } } }));
  }

  async restartTests(pullRequestId: string) {
    return this.unwrap('pullRequests.restartTests', this.client.POST('/v2/pull-requests/{id}/restart-tests', { params: { path: { id: pullRequestId } } }));
  }
}
