import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export const APP_ENVS = ['development', 'test', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value);

/**
 * Every setting any deployable reads, validated once at start. Defaults work on a developer
 * machine; production-only secrets have no default so that their absence fails closed
 * (money movements answer PROVIDER_NOT_CONFIGURED) rather than silently using a dev value.
 */
export class GatewayEnv {
  @IsIn(APP_ENVS)
  APP_ENV: AppEnv = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/gateway';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Time the process gives in-flight requests and jobs after SIGTERM. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_GRACE_MS = 25_000;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PURCHASE_PROVIDER_BASE_URL?: string;

  @IsOptional()
  @IsString()
  PURCHASE_PROVIDER_API_KEY?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PAYOUT_PROVIDER_BASE_URL?: string;

  @IsOptional()
  @IsString()
  PAYOUT_PROVIDER_API_KEY?: string;

  @IsString()
  VOUCHER_ACCOUNT_ALIAS = 'gateway-dev';

  /** Base URL the provider posts callbacks to; the secret token is appended as the last path segment. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  CALLBACK_BASE_URL?: string;

  @IsOptional()
  @Matches(/^[0-9a-f]{64}$/, { message: 'CALLBACK_TOKEN must be 64 lowercase hexadecimal characters' })
  CALLBACK_TOKEN?: string;

  /** Accepted alongside CALLBACK_TOKEN while a rotation is in progress. */
  @IsOptional()
  @Matches(/^[0-9a-f]{64}$/, { message: 'CALLBACK_TOKEN_PREVIOUS must be 64 lowercase hexadecimal characters' })
  CALLBACK_TOKEN_PREVIOUS?: string;

  /** Comma-separated `keyId:base64(32 bytes)` list; several ids allow rotation. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'ENCRYPTION_KEYS must be a comma-separated list of keyId:base64 of 32 bytes',
  })
  ENCRYPTION_KEYS?: string;

  @IsOptional()
  @IsString()
  ENCRYPTION_ACTIVE_KEY_ID?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_READ_PER_MINUTE = 600;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_WRITE_PER_MINUTE = 300;

  @IsString()
  SANDBOX_API_KEY = 'sandbox-key';

  /**
   * Redis key prefix of every BullMQ queue. The braces are a Redis Cluster hash tag; separate
   * environments sharing one Redis (or test runs) use separate prefixes.
   */
  @Matches(/^\{[A-Za-z0-9_-]{1,40}\}$/, { message: 'QUEUE_PREFIX must look like {name}' })
  QUEUE_PREFIX = '{gw}';

  /** Jobs each worker process runs at once per queue. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  WORKER_CONCURRENCY = 16;

  get isProduction(): boolean {
    return this.APP_ENV === 'production';
  }
}
