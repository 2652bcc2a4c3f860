import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule, type Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { GatewayEnv } from '#config';
import { HealthController, READINESS_INDICATORS, type ReadinessIndicator } from './health.js';
import { buildLoggerParams } from './logging.js';
import { HttpMetricsMiddleware, MetricsController, MetricsService } from './metrics.js';

export interface ObservabilityOptions {
  /**
   * What readiness checks besides PostgreSQL, by the key it reports under, e.g.
   * `{ redis: RedisHealthIndicator }` from #queues. The app names them, so this platform lib
   * depends on no client it does not own. Each class is instantiated in this module, where
   * terminus' HealthIndicatorService is available.
   */
  readiness?: Record<string, Type<ReadinessIndicator>>;
}

/** JSON logs with redaction, Prometheus metrics and health endpoints, the same in every deployable. */
@Module({})
export class ObservabilityModule implements NestModule {
  static forRoot(service: string, options: ObservabilityOptions = {}): DynamicModule {
    const readiness = Object.entries(options.readiness ?? {});
    return {
      module: ObservabilityModule,
      global: true,
      imports: [
        LoggerModule.forRootAsync({ inject: [GatewayEnv], useFactory: (config: GatewayEnv) => buildLoggerParams(service, config.LOG_LEVEL) }),
        TerminusModule.forRoot({ logger: false, errorLogStyle: 'json' } as never),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        MetricsService,
        ...readiness.map(([, indicator]) => indicator),
        {
          provide: READINESS_INDICATORS,
          inject: readiness.map(([, indicator]) => indicator),
          useFactory: (...instances: ReadinessIndicator[]) => readiness.map(([key], index) => [key, instances[index]] as const),
        },
      ],
      exports: [MetricsService],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*path');
  }
}
