import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import type { Decider } from '../four-eyes/four-eyes.service.js';
import { StaffActionRefused, StaffPermissionDenied } from '../model/errors.js';
import { staffRoleAllows } from '../model/staff-roles.js';
import type { StaffAuditLog } from '../persistence/staff-audit.repository.js';
import type { StaffAccounts } from '../staff-accounts.service.js';

export const NOTE_MAX_LENGTH = 4000;

/** An append-only note on a worked item, with its author and time. */
export interface ItemNote {
  id: string;
  author: string;
  authorStaffId: string;
  body: string;
  createdAt: Date;
}

/** What every item a person works has: who owns it. */
export interface WorkedItem {
  id: string;
  vendorId: string | null;
  ownerStaffId: string | null;
  ownerEmail: string | null;
}

/** How one kind of worked item is stored, named and audited (an exception, a purchase in review, a payout in review). */
export interface WorkStore<T extends WorkedItem> {
  /** The staff audit's subject type. */
  subjectType: string;
  /** The audit actions' prefix: `{actionPrefix}.claimed`, `.unclaimed`, `.reassigned`, `.noted`. */
  actionPrefix: string;
  /** The item in messages, with its article: "an exception", "a purchase". */
  noun: string;
  /** The item as it is now, locked for the transaction where the store has a row to lock; null: there is none. */
  load(manager: EntityManager, id: string): Promise<T | null>;
  /** Why it can no longer be claimed or resolved (resolved, left its queue), or null while it is open. */
  closed(item: T): string | null;
  /** Sets the owner (null: nobody) only while `expected` owns it. */
  setOwner(manager: EntityManager, item: T, owner: string | null, expected: string | null): Promise<boolean>;
  addNote(manager: EntityManager, item: T, author: { staffUserId: string; label: string }, body: string): Promise<string>;
  /** Details every audit record of the item carries (e.g. the exception's kind). */
  details?(item: T): Record<string, unknown>;
}

/**
 * Claim, unclaim, reassign and append-only notes: how a person works an item in a back-office
 * queue (docs/BACK-OFFICE.md, "Exceptions" and "Owner and notes"). One owner at a time, others
 * see who; only the owner unclaims; operators and approvers reassign to another active operator
 * or approver; anyone who may work items adds notes, also after the item left its queue. Every
 * step writes its staff audit record in the transaction of the change. The exceptions desk and
 * the review queues each give their own WorkStore.
 */
export class ItemWork<T extends WorkedItem> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: StaffAuditLog,
    private readonly accounts: StaffAccounts,
    private readonly store: WorkStore<T>,
  ) {}

  /** The actor becomes the owner of an open item nobody owns (owning it already changes nothing). */
  claim(id: string, actor: Decider): Promise<void> {
    return this.onOpen(id, actor, async (item, manager) => {
      if (item.ownerStaffId === actor.staffUserId) return;
      if (item.ownerStaffId) throw new StaffActionRefused(`${item.ownerEmail} owns this ${this.name}: ask them, or reassign it.`);
      await this.takeOwnership(manager, item, actor);
    });
  }

  /** The owner gives the item back to the queue. */
  unclaim(id: string, actor: Decider): Promise<void> {
    return this.onOpen(id, actor, async (item, manager) => {
      if (item.ownerStaffId !== actor.staffUserId) throw new StaffActionRefused(`Only its owner can unclaim ${this.store.noun}; reassign it instead.`);
      if (!(await this.store.setOwner(manager, item, null, actor.staffUserId))) throw changedMeanwhile(this.name);
      await this.record(manager, actor, 'unclaimed', item);
    });
  }

  /** Hands the item to another person who may work it (operator or approver), whoever owns it now. */
  async reassign(id: string, to: unknown, actor: Decider): Promise<void> {
    this.assertMayWork(actor);
    const target = typeof to === 'string' && UUID_PATTERN.test(to) ? await this.accounts.get(to).catch(() => null) : null;
    if (!target || !target.active || target.disabledAt || !staffRoleAllows(target.role, 'actions:propose')) {
      throw new ValidationFailedError({ owner: ['Choose an active operator or approver.'] });
    }
    await this.onOpen(id, actor, async (item, manager) => {
      if (item.ownerStaffId === target.id) return;
      if (!(await this.store.setOwner(manager, item, target.id, item.ownerStaffId))) throw changedMeanwhile(this.name);
      await this.record(manager, actor, 'reassigned', item, { from: item.ownerEmail, to: target.email });
    });
  }

  /** An append-only note with its author and time (also once the item left its queue: what happened after). */
  async note(id: string, body: unknown, actor: Decider): Promise<void> {
    this.assertMayWork(actor);
    const written = typeof body === 'string' ? body.trim() : '';
    if (written.length === 0 || written.length > NOTE_MAX_LENGTH) throw new ValidationFailedError({ note: [`Write the note (at most ${NOTE_MAX_LENGTH} characters).`] });
    await this.dataSource.transaction(async (manager) => {
      const item = await this.load(manager, id);
      const noteId = await this.store.addNote(manager, item, { staffUserId: actor.staffUserId, label: actor.label }, written);
      await this.record(manager, actor, 'noted', item, { note_id: noteId, note: written });
    });
  }

  /** Before a resolution: the actor must own the item; one nobody owns is claimed for them (in the caller's transaction). */
  async ownOrClaim(manager: EntityManager, item: T, actor: Decider): Promise<void> {
    if (item.ownerStaffId === actor.staffUserId) return;
    if (item.ownerStaffId) throw new StaffActionRefused(`${item.ownerEmail} owns this ${this.name}: only its owner resolves it (reassign it first).`);
    await this.takeOwnership(manager, item, actor);
  }

  /** Runs `work` on the open item in one transaction (under the store's lock). */
  async onOpen(id: string, actor: Decider, work: (item: T, manager: EntityManager) => Promise<void>): Promise<void> {
    this.assertMayWork(actor);
    await this.dataSource.transaction(async (manager) => {
      const item = await this.load(manager, id);
      const closed = this.store.closed(item);
      if (closed) throw new StaffActionRefused(closed);
      await work(item, manager);
    });
  }

  assertMayWork(actor: Decider): void {
    if (!staffRoleAllows(actor.role, 'actions:propose')) throw new StaffPermissionDenied(`Your role (${actor.role}) cannot work ${this.name}s.`);
  }

  private get name(): string {
    return this.store.noun.replace(/^an? /, '');
  }

  private async load(manager: EntityManager, id: string): Promise<T> {
    const item = UUID_PATTERN.test(id) ? await this.store.load(manager, id) : null;
    if (!item) throw new NotFoundError(this.name);
    return item;
  }

  private async takeOwnership(manager: EntityManager, item: T, actor: Decider): Promise<void> {
    if (!(await this.store.setOwner(manager, item, actor.staffUserId, null))) throw new StaffActionRefused('Someone claimed it meanwhile; reload the page.');
    await this.record(manager, actor, 'claimed', item);
  }

  private record(manager: EntityManager, actor: Decider, step: 'claimed' | 'unclaimed' | 'reassigned' | 'noted', item: T, details: Record<string, unknown> = {}): Promise<void> {
    return this.audit.record(
      { actor, action: `${this.store.actionPrefix}.${step}`, subjectType: this.store.subjectType, subjectId: item.id, vendorId: item.vendorId, details: { ...this.store.details?.(item), ...details } },
      manager,
    );
  }
}

function changedMeanwhile(name: string): StaffActionRefused {
  return new StaffActionRefused(`The ${name} changed meanwhile; reload the page.`);
}
