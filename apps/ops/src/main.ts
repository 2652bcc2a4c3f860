/**
 * Operator CLI: `npm run ops -- <command> [options]`. Each command prints one JSON object on
 * stdout, or a clear message on stderr with a non-zero exit.
 */
import 'reflect-metadata';
import { Command } from 'commander';
import { registerDemoSeedCommand } from './commands/demo-seed.command.js';
import { registerVendorCommands } from './commands/vendor.commands.js';

const program = new Command('ops').description('Payments gateway operator CLI').showHelpAfterError();
registerVendorCommands(program);
registerDemoSeedCommand(program, []);

program.exitOverride((error) => {
  process.exit(error.exitCode === 0 ? 0 : 2);
});
await program.parseAsync(process.argv);
