import type { Response } from 'express';

/**
 * The header an idempotent write answers with when it replays a request already accepted: the
 * stored result, no second provider submission. OpenAPI documents it on every operation listed
 * as `replayable` (openapi-finish).
 */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Says `Idempotent-Replayed: true` on the answer when the write replayed an earlier request; nothing otherwise. */
export function markIdempotentReplay(response: Response, replayed: boolean): void {
  if (replayed) response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
}
