// Git over HTTP for the GitHub double: `git http-backend` run as a CGI program over the double's
// bare repositories, as GitHub serves `https://github.com/<owner>/<name>.git`. Served repositories
// hide refs/pull/* from pushes (GitHub owns them) and answer fetches of any reachable commit.
import { spawn } from 'node:child_process';
import type http from 'node:http';

export interface GitHttpRequest {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** The directory holding `<owner>/<name>.git`. */
  projectRoot: string;
  /** `/<owner>/<name>.git/...` */
  pathInfo: string;
  query: string;
  user: string;
}

const SERVED_CONFIG: Record<string, string> = {
  'http.receivepack': 'true',
  'uploadpack.allowReachableSHA1InWant': 'true',
  'receive.hideRefs': 'refs/pull',
};

/** Runs one smart-HTTP request through git http-backend; resolves when the response is sent. */
export function serveGitHttp(r: GitHttpRequest): Promise<void> {
  const configEnv: Record<string, string> = { GIT_CONFIG_COUNT: String(Object.keys(SERVED_CONFIG).length) };
  Object.entries(SERVED_CONFIG).forEach(([key, value], i) => {
    configEnv[`GIT_CONFIG_KEY_${i}`] = key;
    configEnv[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  const header = (name: string) => {
    const v = r.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : (v ?? '');
  };
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_PROJECT_ROOT: r.projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: r.pathInfo,
      QUERY_STRING: r.query,
      REQUEST_METHOD: r.req.method ?? 'GET',
      CONTENT_TYPE: header('content-type'),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      GIT_PROTOCOL: header('git-protocol'),
      REMOTE_USER: r.user,
      REMOTE_ADDR: '127.0.0.1',
      ...configEnv,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  r.req.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        r.res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const text = head.toString('latin1');
      const end = text.search(/\r?\n\r?\n/);
      if (end < 0) return;
      const sep = /\r?\n\r?\n/.exec(text.slice(end))?.[0].length ?? 2;
      let status = 200;
      for (const line of text.slice(0, end).split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else r.res.setHeader(name, value);
      }
      r.res.writeHead(status);
      headersSent = true;
      r.res.write(head.subarray(end + sep));
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!headersSent) {
        r.res.writeHead(500).end(`git http-backend failed (${code}): ${stderr}`);
      } else r.res.end();
      resolve();
    });
  });
}
