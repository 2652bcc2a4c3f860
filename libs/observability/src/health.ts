import { Controller, Get, Inject, Injectable } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { Public } from '#auth';
import { SkipEnvelope } from '#common';
import { REDIS_CLIENT } from '#queues';

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

/** Liveness says the process can serve; readiness says its dependencies answer. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get('live')
  @Public()
  @SkipEnvelope()
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @SkipEnvelope()
  @HealthCheck()
  ready() {
    return this.health.check([() => this.database.pingCheck('postgres', { timeout: 1_500 }), () => this.redis.isHealthy('redis')]);
  }
}
