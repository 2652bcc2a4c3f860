import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { PAYOUT_SCOPES, PURCHASE_ABILITIES, TokenService, VendorService, WEBHOOK_ABILITIES } from '#auth';
import { GatewayEnv } from '#config';
import { DashboardAccounts } from '#dashboard';
import { OpsInputError, runCommand } from '../ops-context.js';

/** The reason the demo seed's staff audit records carry. */
export const DEMO_SEED_REASON = 'demo:seed, development only (refused with APP_ENV=production)';

/** Steps that later capabilities add to the demo vendor (catalogue, pricing, funding...). */
export type DemoSeedStep = (context: INestApplicationContext, vendorId: string) => Promise<void>;

export function registerDemoSeedCommand(program: Command, steps: DemoSeedStep[]): void {
  program
    .command('demo:seed')
    .description('Create a ready-to-use demo vendor and print its tokens')
    .option('--vendor-name <name>', 'vendor name', 'Demo vendor')
    // Each base_url is servers[0].url of that gateway's /docs-json, as its contract puts it: the
    // purchase base address includes the version prefix /api/v1 (paths are relative to it); the
    // payout base URL is the origin (payout paths include /api/v1). A generated client given
    // base_url calls the right URLs on both.
    .option('--purchase-base-url <url>', 'purchase base URL to print', 'http://127.0.0.1:3000/api/v1')
    .option('--payout-base-url <url>', 'payout base URL to print', 'http://127.0.0.1:3001')
    .option('--dashboard-url <url>', 'vendor dashboard URL to print', 'http://127.0.0.1:3200')
    .action((options: { vendorName: string; purchaseBaseUrl: string; payoutBaseUrl: string; dashboardUrl: string }) =>
      runCommand(async (context) => {
        // The seed funds R100 000 and sets spend controls in one command, past the four-eyes rule
        // every other money command follows (STAFF_FOUR_EYES_ABOVE_CENTS): a development path only.
        if (context.get(GatewayEnv).isProduction) throw new OpsInputError('demo:seed is for development and tests only: it funds a vendor without a second person, so it refuses APP_ENV=production');
        const vendor = await context.get(VendorService).create(options.vendorName);
        for (const step of steps) await step(context, vendor.id);
        await context.get(VendorService).release(vendor.id);
        const tokens = context.get(TokenService);
        const lifetime = 30 * 86_400;
        // Least privilege: a leaked purchase token cannot move payout money, and the other way round.
        // Each may manage its own gateway's webhook endpoints.
        const purchase = await tokens.issue(vendor.id, [...PURCHASE_ABILITIES, ...WEBHOOK_ABILITIES], lifetime);
        const payout = await tokens.issue(vendor.id, [...PAYOUT_SCOPES, ...WEBHOOK_ABILITIES], lifetime);
        // A demo owner who can sign in straight away: invited and accepted through the same
        // rules as a real owner (password policy, one-time invite), with a random password.
        const accounts = context.get(DashboardAccounts);
        const email = `owner@${vendor.slug}.demo.test`;
        const password = randomBytes(15).toString('base64url');
        const invite = await accounts.invite(vendor.id, email, 'owner', { userId: null, label: 'demo:seed' });
        await accounts.acceptInvite(invite.secret, password, null);
        return {
          vendor_id: vendor.id,
          dashboard: { url: options.dashboardUrl, email, password },
          purchase: { base_url: options.purchaseBaseUrl, token: purchase.token },
          payout: { base_url: options.payoutBaseUrl, token: payout.token },
        };
      }),
    );
}
