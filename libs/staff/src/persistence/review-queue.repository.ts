import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface QueueDepth {
  count: number;
  /** Seconds since the oldest item entered the queue; 0 when the queue is empty. */
  oldestAgeSeconds: number;
}

export interface ReviewQueueDepths {
  purchases: QueueDepth;
  payouts: QueueDepth;
}

/**
 * Depth of the two review queues, read for the metrics scrape: purchases in `review` and payouts
 * in `needs_review`, aged from when they entered it (review_at). One statement over the two
 * partial indexes of the queues (migration 1763781300000).
 */
@Injectable()
export class ReviewQueueRepository {
  constructor(private readonly dataSource: DataSource) {}

  async depths(): Promise<ReviewQueueDepths> {
    const [row] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM purchase_transactions WHERE status = 'review')::int AS purchases_count,
              COALESCE((SELECT EXTRACT(EPOCH FROM now() - min(COALESCE(review_at, created_at))) FROM purchase_transactions WHERE status = 'review'), 0)::float8 AS purchases_oldest,
              (SELECT count(*) FROM payouts WHERE status = 'needs_review')::int AS payouts_count,
              COALESCE((SELECT EXTRACT(EPOCH FROM now() - min(COALESCE(review_at, created_at))) FROM payouts WHERE status = 'needs_review'), 0)::float8 AS payouts_oldest`,
    );
    return {
      purchases: { count: row.purchases_count, oldestAgeSeconds: Math.max(0, Math.floor(row.purchases_oldest)) },
      payouts: { count: row.payouts_count, oldestAgeSeconds: Math.max(0, Math.floor(row.payouts_oldest)) },
    };
  }
}
