import { staffRoleAllows, type StaffSession, type StaffUser } from '#staff';
import { html, when, type SafeHtml } from '#web';
import { csrfField } from './layout.js';

/** What the owner and notes sections need of a worked item (an exception, a purchase or payout in review). */
export interface WorkedItemView {
  /** The item's page; its forms post to `{path}/claim`, `/unclaim`, `/reassign`, `/notes`. */
  path: string;
  ownerStaffId: string | null;
  ownerEmail: string | null;
  claimedAt: Date | null;
  /** Still in its queue: it can be claimed, unclaimed and reassigned. */
  open: boolean;
}

/** The owner as the facts list says it. */
export function ownerFact(session: StaffSession, item: WorkedItemView): SafeHtml {
  return item.ownerEmail ? html`${item.ownerEmail}${item.ownerStaffId === session.staffUserId ? ' (you)' : ''}, since ${when(item.claimedAt)}` : html`nobody`;
}

/**
 * Claim, unclaim and reassign, for those who may work items (operators and approvers) while the
 * item is open: Claim when nobody owns it, Unclaim for its owner, who owns it for everyone else,
 * and Reassign to another active operator or approver.
 */
export function ownershipSection(session: StaffSession, item: WorkedItemView, staff: readonly StaffUser[]): SafeHtml {
  if (!item.open || !staffRoleAllows(session.role, 'actions:propose')) return html``;
  const candidates = staff.filter((user) => user.active && !user.disabledAt && staffRoleAllows(user.role, 'actions:propose') && user.id !== item.ownerStaffId);
  const mine = item.ownerStaffId === session.staffUserId;
  return html`<h2>Owner</h2>${
    !item.ownerStaffId
      ? html`<form method="post" action="${item.path}/claim">${csrfField(session)}<button type="submit">Claim</button></form>`
      : mine
        ? html`<form method="post" action="${item.path}/unclaim">${csrfField(session)}<button type="submit" class="secondary">Unclaim</button></form>`
        : html`<p>${item.ownerEmail} owns it: only they resolve it, unless it is reassigned.</p>`
  }${candidates.length === 0 ? html`` : html`<form method="post" action="${item.path}/reassign">${csrfField(session)}
<label for="owner-choice">Reassign to</label><select id="owner-choice" name="owner">${candidates.map((user) => html`<option value="${user.id}">${user.email} (${user.role})</option>`)}</select>
<p><button type="submit" class="secondary">Reassign</button></p></form>`}`;
}

/** The append-only notes, oldest first, and the form that adds one (also once the item is closed). */
export function notesSection(session: StaffSession, item: Pick<WorkedItemView, 'path'>, notes: readonly { author: string; createdAt: Date; body: string }[], hint = 'who you called, what they said'): SafeHtml {
  const list = notes.length === 0
    ? html`<p>No notes yet.</p>`
    : html`<ol class="notes">${notes.map((note) => html`<li><p class="hint">${note.author}, ${when(note.createdAt)}</p><p>${note.body}</p></li>`)}</ol>`;
  const add = staffRoleAllows(session.role, 'actions:propose')
    ? html`<form method="post" action="${item.path}/notes">${csrfField(session)}<label for="note">Add a note (${hint})</label><textarea id="note" name="note" required maxlength="4000"></textarea><p><button type="submit" class="secondary">Add note</button></p></form>`
    : html``;
  return html`<h2>Notes</h2>${list}${add}`;
}
