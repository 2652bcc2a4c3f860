import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { GatewayEnv } from '#config';
import { FourEyes, StaffAccounts, StaffAuditLog, type CliOutcome, type CliProposer, type Proposal } from '#staff';
import { cliActor } from './cli-actor.js';
import { OpsInputError } from './ops-context.js';

/** Where staff approve: the back-office's address as people reach it (the staff commands' default). */
export const BACK_OFFICE_URL = 'http://127.0.0.1:3300';

export interface ProposerOptions {
  proposer?: string;
  code?: string;
  backOfficeUrl: string;
}

/** The options of a money command that may need a second person. */
export function withProposerOptions(command: Command): Command {
  return command
    .option('--proposer <email>', 'above STAFF_FOUR_EYES_ABOVE_CENTS: your staff account, which proposes the change')
    .option('--code <totp>', "above STAFF_FOUR_EYES_ABOVE_CENTS: your staff account's current authenticator code (used once)")
    .option('--back-office-url <url>', 'the back-office address printed for the approver', BACK_OFFICE_URL);
}

/** What a CLI staff proof is about: the command, and its subject for the refusal's audit record (a vendor unless named otherwise). */
export interface ProofSubject {
  command: string;
  vendorId: string | null;
  subjectType?: string;
  subjectId?: string;
  /** Why a staff account must be proven, when it is not the four-eyes threshold. */
  needed?: string;
}

/**
 * The proposer of a CLI money change above the four-eyes threshold: the staff account named by
 * --proposer, proven by its current authenticator code (used once, like a sign-in's). The OS user
 * alone cannot propose: the back-office's rule "never the proposer" needs a staff identity, and
 * naming a colleague without their code would let one person propose and approve.
 */
export function cliProposer(context: INestApplicationContext, options: ProposerOptions, about: ProofSubject): CliProposer {
  return async () => {
    const threshold = context.get(GatewayEnv).STAFF_FOUR_EYES_ABOVE_CENTS;
    if (!options.proposer || !options.code) {
      const needed = about.needed ?? `this change is above the four-eyes threshold (STAFF_FOUR_EYES_ABOVE_CENTS=${threshold}) and needs a second person`;
      throw new OpsInputError(
        `${needed}: pass --proposer <your staff email> --code <your authenticator code> to propose it, then another approver approves it in the back-office. Nothing was changed.`,
      );
    }
    const user = await context.get(StaffAccounts).checkSecondFactor(options.proposer, options.code);
    if (!user) {
      // A failed proof is on the trail: someone guessing a colleague's codes through the CLI is seen.
      await context.get(StaffAuditLog).record({
        actor: cliActor(),
        action: 'ops.proposer_refused',
        subjectType: about.subjectType ?? 'vendor',
        subjectId: about.subjectId ?? about.vendorId,
        vendorId: about.vendorId,
        details: { command: about.command, proposer_email: options.proposer },
      });
      throw new OpsInputError('--proposer and --code do not match an active staff account with an authenticator (a code works once). Nothing was changed.');
    }
    return { staffUserId: user.id, label: user.email, role: user.role, address: null };
  };
}

/** What the CLI prints: the applied change as before, or the proposal, what it will do and where to approve it. */
export function printableOutcome<T>(context: INestApplicationContext, outcome: CliOutcome<T>, backOfficeUrl: string): unknown {
  if (outcome.applied) return outcome.result;
  const proposal: Proposal = outcome.proposal;
  return {
    applied: false,
    proposal: {
      id: proposal.id,
      kind: proposal.kind,
      status: proposal.status,
      will_do: context.get(FourEyes).describe(proposal),
      params: proposal.params,
      reason: proposal.reason,
      proposed_by: proposal.proposedByEmail,
      approve_at: `${backOfficeUrl.replace(/\/+$/, '')}/proposals/${proposal.id}`,
    },
    next: `Nothing has changed yet: another staff member with the approver role (not ${proposal.proposedByEmail}) approves or rejects it in the back-office.`,
  };
}
