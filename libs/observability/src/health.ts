import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthIndicatorResult } from '@nestjs/terminus';
import { Public, SkipEnvelope } from '#common';

/** A dependency readiness checks besides PostgreSQL (e.g. #queues' RedisHealthIndicator), given by the app. */
export interface ReadinessIndicator {
  isHealthy(key: string): Promise<HealthIndicatorResult>;
}

/** The app's readiness indicators by the key they report under (ObservabilityModule.forRoot). */
export const READINESS_INDICATORS = Symbol('READINESS_INDICATORS');
export type ReadinessIndicators = ReadonlyArray<readonly [key: string, indicator: ReadinessIndicator]>;

/** Liveness says the process can serve; readiness says its dependencies answer. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(READINESS_INDICATORS) private readonly indicators: ReadinessIndicators,
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
    return this.health.check([
      () => this.database.pingCheck('postgres', { timeout: 1_500 }),
      ...this.indicators.map(([key, indicator]) => () => indicator.isHealthy(key)),
    ]);
  }
}
