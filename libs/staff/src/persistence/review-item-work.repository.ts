import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, updateReturning, type Queryable } from '#database';
import type { ItemNote } from '../work/item-work.js';
import type { ReviewDomain } from './manual-resolution.repository.js';

/** Who owns a review item, and since when (no row, or a row without owner: nobody). */
export interface ItemOwner {
  subjectId: string;
  ownerStaffId: string;
  ownerEmail: string;
  claimedAt: Date;
}

const OWNER = readShape<ItemOwner>({ subjectId: 'c.subject_id', ownerStaffId: 'c.owner_staff_id', ownerEmail: 'u.email', claimedAt: 'c.claimed_at' });
const NOTE = readShape<ItemNote>({ id: 'id::text', author: 'author', authorStaffId: 'author_staff_id', body: 'body', createdAt: 'created_at' });

/**
 * `staff_item_claims` and `staff_item_notes`: the owner and the append-only notes of a review
 * queue item (a purchase in `review`, a payout in `needs_review`). The owner changes only by a
 * guarded write (from whom the caller believes owns it), so two people acting at once cannot
 * both succeed; whether the item is still in its queue is the caller's check.
 */
@Injectable()
export class ReviewItemWorkRepository {
  constructor(private readonly dataSource: DataSource) {}

  async owner(domain: ReviewDomain, id: string, manager: Queryable = this.dataSource.manager): Promise<ItemOwner | null> {
    return OWNER.first(await manager.query(`SELECT ${OWNER.columns} FROM staff_item_claims c JOIN staff_users u ON u.id = c.owner_staff_id WHERE c.subject_type = $1 AND c.subject_id = $2`, [domain, id]));
  }

  /** The owners of many items at once (a queue page), by item id. */
  async owners(domain: ReviewDomain, ids: readonly string[]): Promise<Map<string, ItemOwner>> {
    if (ids.length === 0) return new Map();
    const rows: object[] = await this.dataSource.query(
      `SELECT ${OWNER.columns} FROM staff_item_claims c JOIN staff_users u ON u.id = c.owner_staff_id WHERE c.subject_type = $1 AND c.subject_id = ANY($2::uuid[])`,
      [domain, ids],
    );
    return new Map(rows.map(OWNER.read).map((owner) => [owner.subjectId, owner]));
  }

  /** Sets the owner (null: nobody) only while `expected` owns it; false when someone else changed it first. */
  async setOwner(manager: Queryable, domain: ReviewDomain, id: string, owner: string | null, expected: string | null): Promise<boolean> {
    const rows = await updateReturning(
      manager,
      `INSERT INTO staff_item_claims AS c (subject_type, subject_id, owner_staff_id, claimed_at)
       SELECT $1::text, $2::uuid, $3::uuid, CASE WHEN $3::uuid IS NULL THEN NULL ELSE now() END WHERE $4::uuid IS NULL
       ON CONFLICT (subject_type, subject_id) DO UPDATE SET owner_staff_id = EXCLUDED.owner_staff_id, claimed_at = EXCLUDED.claimed_at
         WHERE c.owner_staff_id IS NULL
       RETURNING c.subject_id`,
      [domain, id, owner, expected],
    );
    if (rows.length === 1 || expected === null) return rows.length === 1;
    const moved = await updateReturning(
      manager,
      `UPDATE staff_item_claims SET owner_staff_id = $3, claimed_at = CASE WHEN $3::uuid IS NULL THEN NULL ELSE now() END
        WHERE subject_type = $1 AND subject_id = $2 AND owner_staff_id = $4 RETURNING subject_id`,
      [domain, id, owner, expected],
    );
    return moved.length === 1;
  }

  async addNote(manager: Queryable, domain: ReviewDomain, id: string, author: { staffUserId: string; label: string }, body: string): Promise<string> {
    const [row]: { id: string }[] = await manager.query(
      `INSERT INTO staff_item_notes (subject_type, subject_id, author_staff_id, author, body) VALUES ($1, $2, $3, $4, $5) RETURNING id::text AS id`,
      [domain, id, author.staffUserId, author.label, body],
    );
    return row.id;
  }

  async notes(domain: ReviewDomain, id: string): Promise<ItemNote[]> {
    const rows: object[] = await this.dataSource.query(`SELECT ${NOTE.columns} FROM staff_item_notes WHERE subject_type = $1 AND subject_id = $2 ORDER BY id`, [domain, id]);
    return rows.map(NOTE.read);
  }
}
