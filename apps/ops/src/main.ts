/**
 * Operator CLI: `npm run ops -- <command> [options]`. Each command prints one JSON object on
 * stdout, or a clear message on stderr with a non-zero exit.
 */
import 'reflect-metadata';
import { Command } from 'commander';
import { nameCliOperator } from './cli-actor.js';
import { registerCloseCommands } from './commands/close.commands.js';
import { registerDashboardCommands } from './commands/dashboard.commands.js';
import { registerDemoSeedCommand } from './commands/demo-seed.command.js';
import { registerPayoutCommands, seedPayoutDemo } from './commands/payout.commands.js';
import { registerPurchaseCommands, seedPurchaseDemo } from './commands/purchase.commands.js';
import { registerReconcileCommands } from './commands/reconcile.commands.js';
import { registerStaffCommands } from './commands/staff.commands.js';
import { registerVendorCommands } from './commands/vendor.commands.js';

nameCliOperator(process.env.OPS_ACTOR);

const program = new Command('ops').description('Payments gateway operator CLI').showHelpAfterError();
registerVendorCommands(program);
registerPurchaseCommands(program);
registerPayoutCommands(program);
registerReconcileCommands(program);
registerCloseCommands(program);
registerDashboardCommands(program);
registerStaffCommands(program);
registerDemoSeedCommand(program, [seedPurchaseDemo, seedPayoutDemo]);

program.exitOverride((error) => {
  process.exit(error.exitCode === 0 ? 0 : 2);
});
await program.parseAsync(process.argv);
