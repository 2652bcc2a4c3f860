import { SetMetadata } from '@nestjs/common';

export const SKIP_ENVELOPE = 'gateway:skip-envelope';

/** For operational endpoints (health, metrics) whose body format is fixed by their consumers. */
export const SkipEnvelope = () => SetMetadata(SKIP_ENVELOPE, true);
