/** A change made on the dashboard (or by staff for a vendor), for the vendor's audit log. */
export interface AuditEvent {
  vendorId: string;
  /** The dashboard user, or null for staff actions through the operator CLI. */
  actorUserId: string | null;
  /** Human-readable actor (the user's email, or `ops`), kept even if the user is later removed. */
  actor: string;
  action: string;
  subject?: string | null;
  /** Never a secret: callers pass ids, names, roles and abilities only. */
  details?: Record<string, unknown>;
  address?: string | null;
}

/** One entry of the vendor's audit log as the team page shows it. */
export interface DashboardAuditEntry {
  actor: string;
  action: string;
  subject: string | null;
  details: Record<string, unknown>;
  address: string | null;
  createdAt: Date;
}
