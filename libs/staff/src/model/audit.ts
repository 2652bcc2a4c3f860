export interface StaffAuditEvent {
  actor: { staffUserId: string | null; label: string; address?: string | null };
  action: string;
  subjectType?: string | null;
  subjectId?: string | null;
  vendorId?: string | null;
  /** The written reason of a decision (the proposal's), never a secret. */
  reason?: string | null;
  proposalId?: string | null;
  approvedBy?: { staffUserId: string; label: string } | null;
  /** Ids, amounts as strings, statuses: never a secret, PIN or token. */
  details?: Record<string, unknown>;
}

export interface StaffAuditRecord {
  id: string;
  createdAt: Date;
  actor: string;
  action: string;
  subjectType: string | null;
  subjectId: string | null;
  vendorId: string | null;
  reason: string | null;
  proposalId: string | null;
  approvedBy: string | null;
  details: Record<string, unknown>;
  address: string | null;
}
