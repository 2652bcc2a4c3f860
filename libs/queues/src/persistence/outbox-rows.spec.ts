import sql from 'sql-template-tag';
import { jobSpec } from '../queue-registry.js';
import { outboxRowOf, outboxRowsOfJobs } from './outbox.repository.js';

describe('outbox rows as SQL fragments', () => {
  it('binds the job name, id and payload: no job name is written into the SQL text', () => {
    const at = new Date('2026-11-28T00:00:00Z');
    const job = jobSpec('payout.poll-status', { payoutId: '00000000-0000-0000-0000-000000000001', link: 3 });
    const statement = sql`WITH next_link AS (SELECT ${'x'}::text AS id) ${outboxRowOf(sql`next_link`, job, at)}`;
    expect(statement.text).not.toContain('payout.poll-status');
    expect(statement.text).toBe(
      'WITH next_link AS (SELECT $1::text AS id) INSERT INTO outbox_messages (job_name, job_id, payload, run_at) SELECT $2::text, $3::text, $4::jsonb, $5::timestamptz FROM next_link',
    );
    expect(statement.values).toEqual(['x', 'payout.poll-status', job.id, JSON.stringify(job.payload), at]);
  });

  it('unnests many jobs of one name in one statement', () => {
    const jobs = ['a', 'b'].map((payoutId) => jobSpec('payout.batch-item', { payoutId }));
    const statement = outboxRowsOfJobs('payout.batch-item', jobs);
    expect(statement.values).toEqual(['payout.batch-item', jobs.map((job) => job.id), jobs.map((job) => JSON.stringify(job.payload))]);
    expect(statement.text).toBe(
      'INSERT INTO outbox_messages (job_name, job_id, payload, run_at) SELECT $1::text, t.job_id::text, t.payload::jsonb, now()::timestamptz FROM unnest($2::text[], $3::text[]) AS t(job_id, payload)',
    );
  });
});
