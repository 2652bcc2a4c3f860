import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayEnv } from '#config';
import { REDIS_CLIENT } from '#queues';
import { SignInLimiter } from '#web';

/** The vendor dashboard's limiter (#web), counting staff sign-ins apart from vendors'. */
@Injectable()
export class StaffSignInLimiter extends SignInLimiter {
  constructor(@Inject(REDIS_CLIENT) redis: Redis, @Inject(GatewayEnv) config: GatewayEnv) {
    super(redis, `${config.QUEUE_PREFIX}:staff:signin`);
  }
}
