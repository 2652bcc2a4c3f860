import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A vendor API token. Only the SHA-256 of the secret is stored; the secret is shown once. */
@Entity('api_tokens')
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index()
  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ name: 'token_hash', type: 'char', length: 64, unique: true })
  tokenHash: string;

  /** First characters of the secret, enough for staff to recognise a token, useless to an attacker. */
  @Column({ name: 'token_prefix', type: 'text' })
  tokenPrefix: string;

  @Column({ type: 'text', array: true })
  abilities: string[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** A label chosen in the dashboard; tokens issued by the operator CLI have none. */
  @Column({ type: 'text', nullable: true })
  name: string | null;

  /** The dashboard user who created it (null when staff issued it with the operator CLI). */
  @Column({ name: 'created_by_user_id', type: 'uuid', nullable: true })
  createdByUserId: string | null;

  /** Refreshed at most once a minute by authenticate(), so the dashboard can show stale tokens. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
