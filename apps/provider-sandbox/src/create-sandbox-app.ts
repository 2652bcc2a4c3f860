import 'reflect-metadata';
import type { INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ProviderSandboxModule } from './provider-sandbox.module.js';
import type { SandboxOptions } from './sandbox-options.js';

export interface CreateSandboxAppOptions extends Partial<SandboxOptions> {
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Builds the sandbox app without listening, so main.ts picks the port and tests call
 * `app.listen(0)`. Open connections (a deliberately hung submission) are cut on close.
 */
export async function createSandboxApp({ logger, ...options }: CreateSandboxAppOptions = {}): Promise<INestApplication> {
  return NestFactory.create(ProviderSandboxModule.register(options), {
    logger: logger ?? ['error', 'warn', 'log'],
    forceCloseConnections: true,
  });
}
