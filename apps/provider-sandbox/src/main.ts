import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger, LoggerModule } from 'nestjs-pino';
import { installShutdownDeadline } from '#bootstrap';
import { buildLoggerParams } from '#observability';
import { ProviderSandboxModule } from './provider-sandbox.module.js';
import { sandboxOptionsFromEnvironment } from './sandbox-options.js';

// The sandbox logs like every other deployable: pino JSON with the shared redaction list.
@Module({
  imports: [LoggerModule.forRoot(buildLoggerParams('provider-sandbox', process.env.LOG_LEVEL ?? 'info')), ProviderSandboxModule.register(sandboxOptionsFromEnvironment(process.env))],
})
class SandboxMainModule {}

const app = await NestFactory.create(SandboxMainModule, { bufferLogs: true, forceCloseConnections: true });
app.useLogger(app.get(Logger));
// Same drain as the gateways: stop accepting, finish what is in flight, exit 0 (exit 1 past the grace).
const graceMs = Number(process.env.SHUTDOWN_GRACE_MS ?? 25_000);
if (!Number.isSafeInteger(graceMs) || graceMs < 0) {
  process.stderr.write('Invalid configuration:\n  - SHUTDOWN_GRACE_MS: must be a non-negative integer of milliseconds\n');
  process.exit(78);
}
installShutdownDeadline(app, graceMs);
const port = Number(process.env.PORT ?? 3100);
await app.listen(port, '0.0.0.0');
app.get(Logger).log(`provider-sandbox listening on port ${port}`);
