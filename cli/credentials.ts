// Where `openmq login` keeps the tokens it was given: one JSON file per user, in the XDG
// configuration directory (`$XDG_CONFIG_HOME/openmq/credentials.json`, else `~/.config/...`), as
// gh and gcloud do, readable and writable by the user only (file 0600 in a 0700 directory). One
// entry per service URL; OPENMQ_TOKEN and --token still win over it.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface StoredCredential {
  /** The token's id: `openmq logout` revokes it. */
  id: string;
  token: string;
  /** The token's name, e.g. `openmq CLI on laptop`. */
  name: string;
  role: string;
  organization: string;
  expiresAt: string | null;
}

type CredentialFile = Record<string, StoredCredential>;

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return path.join(base, 'openmq', 'credentials.json');
}

/** The service URL as a key: its origin and path, without a trailing slash. */
export const serviceKey = (url: string) => {
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
};

function readAll(file: string): CredentialFile {
  if (!existsSync(file)) return {};
  // Like ssh with its keys: a file others may read is not trusted with a token.
  if ((statSync(file).mode & 0o077) !== 0) {
    throw new Error(`${file} is readable by other users; run \`chmod 600 ${file}\` (or \`openmq logout\`, then \`openmq login\`)`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as CredentialFile;
}

export function readCredential(url: string, env: NodeJS.ProcessEnv = process.env): StoredCredential | null {
  return readAll(credentialsPath(env))[serviceKey(url)] ?? null;
}

/** Stores (null: forgets) the credential of a service; written to a new file, then renamed over the old. */
export function writeCredential(url: string, credential: StoredCredential | null, env: NodeJS.ProcessEnv = process.env): string {
  const file = credentialsPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(path.dirname(file), 0o700);
  const all = readAll(file);
  if (credential) all[serviceKey(url)] = credential;
  else delete all[serviceKey(url)];
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  renameSync(next, file);
  return file;
}
