import { Controller, Get, Header, Injectable, type NestMiddleware } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Public, SkipEnvelope } from '#common';

/** One Prometheus registry per process, with Node's default metrics and HTTP latency. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly jobsProcessed = new Counter({
    name: 'jobs_processed_total',
    help: 'Background jobs processed by job name and outcome',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Every verified lookup of a purchase at the provider, by what it found: the worker's verification rate. */
  readonly purchaseLookups = new Counter({
    name: 'purchase_provider_lookups_total',
    help: 'Purchase lookups at the provider by result (found, not_found, unavailable, mismatched)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}

/** Labels by route template (never the raw URL) so ids and secrets cannot explode cardinality. */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const stop = this.metrics.httpDuration.startTimer();
    response.on('finish', () => {
      const route = (request.route?.path as string | undefined) ?? 'unmatched';
      stop({ method: request.method, route: `${request.baseUrl ?? ''}${route}`, status: String(response.statusCode) });
    });
    next();
  }
}

@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Public()
  @SkipEnvelope()
  @Header('Content-Type', 'text/plain; version=0.0.4')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
