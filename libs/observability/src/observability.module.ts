import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { GatewayEnv } from '#config';
import { HealthController, RedisHealthIndicator } from './health.js';
import { buildLoggerParams } from './logging.js';
import { HttpMetricsMiddleware, MetricsController, MetricsService } from './metrics.js';

/** JSON logs with redaction, Prometheus metrics and health endpoints, the same in every deployable. */
@Module({})
export class ObservabilityModule implements NestModule {
  static forRoot(service: string): DynamicModule {
    return {
      module: ObservabilityModule,
      global: true,
      imports: [
        LoggerModule.forRootAsync({ inject: [GatewayEnv], useFactory: (config: GatewayEnv) => buildLoggerParams(service, config.LOG_LEVEL) }),
        TerminusModule.forRoot({ logger: false, errorLogStyle: 'json' } as never),
      ],
      controllers: [HealthController, MetricsController],
      providers: [MetricsService, RedisHealthIndicator],
      exports: [MetricsService],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*path');
  }
}
