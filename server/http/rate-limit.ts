import type { Context } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { RateLimited, rateLimitHeaders } from './errors.ts';

export type RateLimitConfig = Pick<Config, 'rateLimitPerAddress' | 'rateLimitPerCredential' | 'rateLimitWindowSeconds'>;

/** Counts one request against `key`; sets the X-RateLimit-* headers, or throws 429 when the limit is spent. */
export type RateLimitCheck = (ctx: Context, key: string) => Promise<void>;

const disabled: RateLimitCheck = async () => undefined;

function limiter(orm: MikroORM, keyPrefix: string, points: number, duration: number): RateLimitCheck {
  if (points === 0) return disabled;
  const store = new RateLimiterPostgres({
    storeClient: orm.em.getKnex(),
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true, // by the migration
    keyPrefix,
    points,
    duration,
    // If PostgreSQL cannot be reached the limit still holds per process rather than failing requests.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
  });
  return async (ctx, key) => {
    try {
      const state = await store.consume(key);
      ctx.set(rateLimitHeaders(points, state.remainingPoints, Math.ceil(state.msBeforeNext / 1000)));
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      throw new RateLimited(points, outcome.consumedPoints, Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)));
    }
  };
}

/**
 * The two limits of finance-api.md: per client address on /api, and per credential. Counters live
 * in PostgreSQL so that they hold across every API process.
 */
export function createRateLimits(orm: MikroORM, config: RateLimitConfig): { address: RateLimitCheck; credential: RateLimitCheck } {
  return {
    address: limiter(orm, 'address', config.rateLimitPerAddress, config.rateLimitWindowSeconds),
    credential: limiter(orm, 'credential', config.rateLimitPerCredential, config.rateLimitWindowSeconds),
  };
}
