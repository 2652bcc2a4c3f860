import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Work that must follow a commit, written in the same database transaction as the business
 * row. The relay moves it to BullMQ; if Redis loses a job, the row is still here.
 */
@Entity('outbox_messages')
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'job_name', type: 'text' })
  jobName: string;

  /** Deterministic BullMQ job id, so relaying twice collapses into one job. */
  @Column({ name: 'job_id', type: 'text' })
  jobId: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  /** Earliest time the job may run (BullMQ delay). */
  @Column({ name: 'run_at', type: 'timestamptz', default: () => 'now()' })
  runAt: Date;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
