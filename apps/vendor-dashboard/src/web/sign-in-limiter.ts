import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayEnv } from '#config';
import { REDIS_CLIENT } from '#queues';
import { SignInLimiter as SharedSignInLimiter } from '#web';

export { SIGN_IN_LIMITS } from '#web';

/** The dashboard's sign-in counters (shared implementation in #web), apart from the back-office's. */
@Injectable()
export class SignInLimiter extends SharedSignInLimiter {
  constructor(@Inject(REDIS_CLIENT) redis: Redis, @Inject(GatewayEnv) config: GatewayEnv) {
    super(redis, `${config.QUEUE_PREFIX}:dash:signin`);
  }
}
