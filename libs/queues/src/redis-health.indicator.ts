import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { REDIS_CLIENT } from './redis.module.js';

/**
 * Readiness of the shared Redis client: PING answered within a second. Provided here, beside the
 * client, and handed to ObservabilityModule.forRoot by each app, so #observability needs no Redis.
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async isHealthy(key: string) {
    const check = this.indicators.check(key);
    try {
      const answer = await Promise.race([this.redis.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 1_000))]);
      return answer === 'PONG' ? check.up() : check.down({ message: 'unexpected PING answer' });
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }
}
