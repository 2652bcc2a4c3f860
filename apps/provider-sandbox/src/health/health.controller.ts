import { Controller, Get } from '@nestjs/common';
import { PublicRoute } from '../api-key/public-route.decorator.js';

/** The sandbox holds no connections, so being up is being ready. */
@Controller('health')
@PublicRoute()
export class HealthController {
  @Get(['live', 'ready'])
  status() {
    return { status: 'ok' };
  }
}
