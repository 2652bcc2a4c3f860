import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DomainError, UUID_PATTERN } from '#common';
import { loadConfigOrExit } from '#bootstrap';
import { OPS_CONFIG, OpsModule } from './ops.module.js';

export class OpsInputError extends Error {}

/** Boots the domain services, runs one command, prints exactly one JSON object, exits. */
export async function runCommand(action: (context: INestApplicationContext) => Promise<unknown>): Promise<void> {
  const config = loadConfigOrExit(OPS_CONFIG);
  const context = await NestFactory.createApplicationContext(OpsModule.register(config), { logger: ['error'], abortOnError: false });
  try {
    const result = await action(context);
    // Cents are bigint in the domain; JSON has no bigint, so they print as exact strings.
    process.stdout.write(`${JSON.stringify(result, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n`);
  } catch (error) {
    process.exitCode = 1;
    process.stderr.write(`${describe(error)}\n`);
  } finally {
    await context.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof DomainError) {
    const fields = Object.entries(error.fieldErrors).map(([field, messages]) => `${field}: ${messages.join('; ')}`);
    return `error: ${error.code}${fields.length ? ` (${fields.join(', ')})` : ` (${error.message})`}`;
  }
  // An OpsInputError, or anything else: its message.
  return `error: ${(error as Error).message ?? String(error)}`;
}

export function splitList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);
}

export function requireUuid(value: string, option: string): string {
  if (!UUID_PATTERN.test(value)) throw new OpsInputError(`${option} must be a UUID`);
  return value.toLowerCase();
}

export function parseInteger(value: string, option: string, minimum: number): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < minimum) throw new OpsInputError(`${option} must be an integer of at least ${minimum}`);
  return Number(value);
}
