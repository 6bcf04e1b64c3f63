// Exit codes of `openmq` (stable: scripts branch on them) and the error that carries one.
export const EXIT = {
  done: 0,
  failed: 1,
  usage: 2,
  notFound: 3,
  notAllowed: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code of an API answer's HTTP status: the request's fault, a missing thing, a refusal. */
export function exitCodeOfStatus(status: number): ExitCode {
  if (status === 400) return EXIT.usage;
  if (status === 404) return EXIT.notFound;
  if (status === 401 || status === 403) return EXIT.notAllowed;
  return EXIT.failed;
}
