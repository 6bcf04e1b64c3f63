// Redis connections for BullMQ. Workers retry forever (maxRetriesPerRequest: null, as BullMQ
// requires); the API's producer fails fast so a request gets a 503 instead of hanging.
import { Redis } from 'ioredis';

export type RedisRole = 'worker' | 'producer';

export function createRedis(url: string, role: RedisRole): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 5_000,
    lazyConnect: false,
  });
}

/** Resolves when Redis answers PING. */
export async function pingRedis(redis: Redis): Promise<void> {
  const pong = await redis.ping();
  if (pong !== 'PONG') throw new Error(`unexpected PING answer: ${pong}`);
}
