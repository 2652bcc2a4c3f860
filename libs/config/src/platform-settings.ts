import { IsIn, IsOptional, IsString, IsUrl, Matches } from 'class-validator';
import { APP_ENVS, FlagSetting, IntSetting, IsPostgresUrl, type AppEnv } from './setting-decorators.js';

/**
 * The settings of GatewayEnv (gateway-env.ts) that the processes share: how each runs and drains,
 * the stores and queues it uses, the rate limits and the encryption of stored secrets.
 */
export class PlatformSettings {
  // ---- runtime: every process (environment, logging, the HTTP server and its drain) ----

  @IsIn(APP_ENVS)
  APP_ENV: AppEnv = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @IsOptional()
  @IntSetting(0, 65535)
  PORT?: number;

  /**
   * Where the vendor dashboard and the back-office answer /health/* and /metrics (their own port
   * answers 404 there): unset, the app's default (3201 and 3301). The gateways and the worker
   * keep them on PORT, behind an ingress that forwards only /api/v1.
   */
  @IsOptional()
  @IntSetting(0, 65535)
  OPERATIONAL_PORT?: number;

  /** Time the process gives in-flight requests and jobs after SIGTERM. */
  @IntSetting(0, 600_000)
  SHUTDOWN_GRACE_MS = 25_000;

  /**
   * How long the HTTP server keeps an idle keep-alive connection open. It must outlast the idle
   * timeout of whatever proxies to it (ingress-nginx keeps upstream connections 60 s, most cloud
   * load balancers 60-350 s), so the proxy always closes an idle connection first. Node's default
   * of 5 s lets a proxy reuse a connection just as Node closes it: the request is reset and the
   * client sees a 502.
   */
  @IntSetting(1_000, 3_600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /** Time allowed to receive a request's headers; Node requires it to exceed the keep-alive timeout. */
  @IntSetting(1_000, 3_601_000)
  HTTP_HEADERS_TIMEOUT_MS = 66_000;

  /**
   * Proxies in front of the app whose X-Forwarded-For entry is believed: the client address is the
   * entry that many hops from the right (Kubernetes: 1, the ingress controller). 0, the default,
   * ignores the header: an app reached directly would otherwise take any client's word for its
   * address, and the sign-in limit per address and the audit trail with it.
   */
  @IntSetting(0, 10)
  TRUSTED_PROXY_HOPS = 0;

  // ---- database ----

  @IsPostgresUrl()
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/gateway';

  @IntSetting(1, 200)
  DATABASE_POOL_SIZE = 10;

  /**
   * Parameterised statements run as named prepared statements of their connection: parsed once,
   * planned once where PostgreSQL keeps a generic plan. `false` only behind a transaction-mode
   * pooler that cannot keep them (PgBouncer before 1.21, or without `max_prepared_statements`).
   */
  @FlagSetting()
  DATABASE_PREPARED_STATEMENTS = true;

  // ---- redis: the shared client and the queue producer ----

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Redis key prefix of every BullMQ queue. The braces are a Redis Cluster hash tag; separate
   * environments sharing one Redis (or test runs) use separate prefixes.
   */
  @Matches(/^\{[A-Za-z0-9_-]{1,40}\}$/, { message: 'QUEUE_PREFIX must look like {name}' })
  QUEUE_PREFIX = '{gw}';

  // ---- workerQueues: the BullMQ consumers of the worker, and their crash recovery ----

  /** Jobs each worker process runs at once per queue. */
  @IntSetting(1, 200)
  WORKER_CONCURRENCY = 16;

  /**
   * How long a running job stays locked to its worker without a renewal (renewed every half of
   * it), and how often workers look for jobs whose worker died: a crashed worker's jobs run again
   * one to two of these after the crash (BullMQ lockDuration and stalledInterval).
   */
  @IntSetting(1_000, 600_000)
  WORKER_JOB_LOCK_MS = 30_000;

  // ---- rateLimits ----

  @IntSetting(1)
  RATE_LIMIT_READ_PER_MINUTE = 600;

  @IntSetting(1)
  RATE_LIMIT_WRITE_PER_MINUTE = 300;

  // ---- encryption: field encryption of stored secrets (PINs, webhook secrets) ----

  /** Comma-separated `keyId:base64(32 bytes)` list; several ids allow rotation. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'ENCRYPTION_KEYS must be a comma-separated list of keyId:base64 of 32 bytes',
  })
  ENCRYPTION_KEYS?: string;

  @IsOptional()
  @IsString()
  ENCRYPTION_ACTIVE_KEY_ID?: string;
}
