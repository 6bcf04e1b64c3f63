// Types of the plain-JavaScript redis-server launcher and supervisor, for TypeScript scripts.
export declare const REDIS_MISSING_MESSAGE: string;
export declare function redisServerAvailable(): boolean;
export declare function freePort(): Promise<number>;

export interface RedisExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** redis-server's last log line, which names the reason it stopped when it chose to. */
  lastLogLine: string;
}

export interface RedisServer {
  url: string;
  port: number;
  pid: number | undefined;
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<RedisExit>;
  stop: () => Promise<void>;
}

export declare function startRedis(options?: { dataDir?: string; persistent?: boolean; port?: number }): Promise<RedisServer>;
