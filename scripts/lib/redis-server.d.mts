// Types of the plain-JavaScript redis-server launcher, for TypeScript scripts that import it.
export declare const REDIS_MISSING_MESSAGE: string;
export declare function redisServerAvailable(): boolean;
export declare function freePort(): Promise<number>;
export declare function startRedis(options?: { dataDir?: string; persistent?: boolean }): Promise<{ url: string; stop: () => Promise<void> }>;
