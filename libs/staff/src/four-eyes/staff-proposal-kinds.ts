import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UUID_PATTERN, ValidationFailedError } from '#common';
import { StaffActionRefused } from '../model/errors.js';
import { isStaffRole } from '../model/staff-roles.js';
import { StaffAccounts } from '../staff-accounts.service.js';
import { ProposalKinds } from './proposal-kinds.js';

/**
 * Staff management through four eyes: a new account and a role change are proposed by one
 * admin and approved by another, so no single admin can give themselves (or an accomplice's
 * account) the power to approve payments.
 */
@Injectable()
export class StaffProposalKinds implements OnModuleInit {
  constructor(
    private readonly kinds: ProposalKinds,
    private readonly accounts: StaffAccounts,
  ) {}

  onModuleInit(): void {
    this.kinds.register({
      kind: 'staff.create',
      auditAction: 'staff.created',
      proposePermission: 'staff:manage',
      approvePermission: 'staff:manage',
      prepare: async (manager: EntityManager, subjectId: string, params: Record<string, unknown>) => {
        const checked = await this.accounts.checkNew(manager, subjectId, String(params.role ?? ''));
        return { subjectType: 'staff_email', subjectId: checked.email, vendorId: null, params: { email: checked.email, role: checked.role } };
      },
      execute: async (manager, proposal) => {
        const link = await this.accounts.createWithin(manager, proposal.subjectId, String(proposal.params.role));
        return { details: { staff_user_id: link.user.id, email: link.user.email, role: link.user.role }, reveal: { label: 'setup', value: link.secret } };
      },
      describe: (proposal) => `New staff account ${proposal.subjectId} as ${String(proposal.params.role)}`,
    });

    this.kinds.register({
      kind: 'staff.role',
      auditAction: 'staff.role_changed',
      proposePermission: 'staff:manage',
      approvePermission: 'staff:manage',
      prepare: async (_manager, subjectId, params) => {
        const role = params.role;
        if (!isStaffRole(role)) throw new ValidationFailedError({ role: ['Choose support, operator, approver or admin.'] });
        if (!UUID_PATTERN.test(subjectId)) throw new ValidationFailedError({ staff_user: ['Unknown staff user.'] });
        const user = await this.accounts.get(subjectId);
        if (user.disabledAt) throw new StaffActionRefused('This account is disabled.');
        if (user.role === role) throw new StaffActionRefused(`${user.email} already has the role ${role}.`);
        return { subjectType: 'staff_user', subjectId: user.id, vendorId: null, params: { email: user.email, from: user.role, role } };
      },
      execute: async (manager, proposal) => {
        const role = proposal.params.role;
        if (!isStaffRole(role)) throw new StaffActionRefused('The proposed role is not valid.');
        const user = await this.accounts.setRoleWithin(manager, proposal.subjectId, role);
        if (!user) throw new StaffActionRefused('The account was disabled meanwhile.');
        return { details: { email: user.email, from: proposal.params.from, to: role } };
      },
      describe: (proposal) => `Role of ${String(proposal.params.email)}: ${String(proposal.params.from)} → ${String(proposal.params.role)}`,
    });

    // Disabling takes access away and applies at once; enabling again gives it back, so it waits
    // for a second admin like a new account.
    this.kinds.register({
      kind: 'staff.enable',
      auditAction: 'staff.enabled',
      proposePermission: 'staff:manage',
      approvePermission: 'staff:manage',
      prepare: async (manager, subjectId) => {
        const user = await this.accounts.checkEnable(manager, subjectId);
        return { subjectType: 'staff_user', subjectId: user.id, vendorId: null, params: { email: user.email, role: user.role, disabled_at: user.disabledAt?.toISOString() ?? null } };
      },
      execute: async (manager, proposal) => {
        await this.accounts.checkEnable(manager, proposal.subjectId);
        const user = await this.accounts.enableWithin(manager, proposal.subjectId);
        if (!user) throw new StaffActionRefused('The account was enabled meanwhile.');
        return { details: { email: user.email, role: user.role } };
      },
      describe: (proposal) => `Enable the staff account ${String(proposal.params.email)} again (${String(proposal.params.role)})`,
    });
  }
}
