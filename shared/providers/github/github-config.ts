// How the GitHub adapter reaches GitHub: the App or token it acts as, the REST and git endpoints,
// the webhook secret and the poll intervals while webhooks arrive (read by shared/composition/config.ts).

export type GitHubAuthConfig =
  /** A GitHub App: a JWT signed with the private key is exchanged for installation tokens. */
  | { kind: 'app'; appId: string; privateKey: string }
  /** A plain token (personal or fine-grained): small setups; no check runs, acts as a person. */
  | { kind: 'token'; token: string };

export interface GitHubConfig {
  auth: GitHubAuthConfig;
  /** Verifies X-Hub-Signature-256 of POST /webhooks/github; null: webhooks are not accepted. */
  webhookSecret: string | null;
  /** REST base URL (GHES: https://HOST/api/v3). */
  apiUrl: string;
  /** The `repo.host` GitHub serves (lower case). */
  host: string;
  /** Base URL of git over HTTPS: the repository is `<gitUrl>/<owner>/<name>.git`. */
  gitUrl: string;
  /** The poll interval of a repository whose signed webhook deliveries are arriving (≥ PROVIDER_POLL_SECONDS). */
  webhookPollSeconds: number;
  /** Deliveries "are arriving" until this long after the last one; then the repository is polled every PROVIDER_POLL_SECONDS again. */
  webhookQuietSeconds: number;
}
