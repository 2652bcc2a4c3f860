import { createHmac, timingSafeEqual } from 'node:crypto';
import { brandErrorClasses, GatewayError } from './errors.js';
import type { components as payoutComponents } from './generated/payout.js';
import type { components as purchaseComponents } from './generated/purchase.js';

/** The headers of a webhook delivery (lower-case, as Node's `req.headers` has them). */
export const WEBHOOK_HEADERS = {
  /** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: one `v1` per secret in force (two during a rotation). */
  signature: 'gateway-signature',
  /** The event id (same as the body's `id`): deduplicate on it. */
  eventId: 'gateway-event-id',
  eventType: 'gateway-event-type',
  deliveryId: 'gateway-delivery-id',
} as const;

/** Signatures older (or newer) than this are refused: a captured request cannot be replayed later. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

type PurchaseTransaction = purchaseComponents['schemas']['Transaction'];
type PayoutPayout = payoutComponents['schemas']['Payout'];
type PayoutBatch = payoutComponents['schemas']['Batch'];

interface EventOf<Type extends string, Data> {
  /** The event id: events can arrive more than once; deduplicate on it. */
  id: string;
  type: Type;
  /** ISO 8601. */
  created_at: string;
  /** The object as its GET answers it at the time of the event: a hint, GET it before acting. */
  data: Data;
}

/** Purchase gateway events: `data` is the transaction. */
export type PurchaseWebhookEvent = EventOf<'transaction.completed' | 'transaction.failed' | 'transaction.reversed' | 'transaction.review', PurchaseTransaction>;
/** Payout gateway events: `data` is the payout (`delivery: null`) or, for `batch.completed`, the batch. */
export type PayoutWebhookEvent = EventOf<'payout.paid' | 'payout.failed' | 'payout.reversed', PayoutPayout> | EventOf<'batch.completed', PayoutBatch>;
/** Any event of either gateway, discriminated on `type`. */
export type GatewayWebhookEvent = PurchaseWebhookEvent | PayoutWebhookEvent;
export type GatewayWebhookEventType = GatewayWebhookEvent['type'];

export const PURCHASE_WEBHOOK_EVENT_TYPES = ['transaction.completed', 'transaction.failed', 'transaction.reversed', 'transaction.review'] as const satisfies readonly PurchaseWebhookEvent['type'][];
export const PAYOUT_WEBHOOK_EVENT_TYPES = ['payout.paid', 'payout.failed', 'payout.reversed', 'batch.completed'] as const satisfies readonly PayoutWebhookEvent['type'][];

/** Why a delivery was refused. Answer it with 400 and do nothing else. */
export class WebhookSignatureError extends GatewayError {
  constructor(
    message: string,
    /** `missing_header`, `malformed_header`, `timestamp_outside_tolerance`, `no_matching_signature`, `invalid_payload`. */
    readonly reason: 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature' | 'invalid_payload',
  ) {
    super(message);
  }
}
brandErrorClasses({ WebhookSignatureError });

export interface VerifyOptions {
  /** Seconds a signature stays valid either side of now. Default 300. */
  toleranceSeconds?: number;
  /** The current time in ms (tests). Default `Date.now()`. */
  now?: number;
}

type RawBody = string | Uint8Array;
type SignatureHeader = string | string[] | null | undefined;

const toText = (body: RawBody) => (typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));

/** HMAC-SHA256 over `<t>.<raw body>`, hex: how the gateways sign. Exposed for tests of your receiver. */
export function computeWebhookSignature(secret: string, timestamp: number, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(`${timestamp}.${toText(rawBody)}`, 'utf8').digest('hex');
}

/** A `Gateway-Signature` header for `rawBody`, signed with every secret given (tests of your receiver). */
export function generateWebhookSignatureHeader(rawBody: RawBody, secrets: string | readonly string[], timestamp = Math.floor(Date.now() / 1000)): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((secret) => `v1=${computeWebhookSignature(secret, timestamp, rawBody)}`)].join(',');
}

/**
 * Checks a delivery's `Gateway-Signature` against the **raw** body (the exact bytes received, before
 * any JSON parsing). `secret` may be a list: during a secret rotation keep both the new and the old
 * secret; a delivery signed with either is accepted. Throws WebhookSignatureError when the header
 * is missing or malformed, the timestamp is outside the tolerance, or no `v1` matches.
 */
export function verifyWebhookSignature(rawBody: RawBody, signatureHeader: SignatureHeader, secret: string | readonly string[], options: VerifyOptions = {}): void {
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  if (typeof header !== 'string' || header.trim() === '') throw new WebhookSignatureError('no Gateway-Signature header', 'missing_header');
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((value) => typeof value === 'string' && value !== '');
  if (secrets.length === 0) throw new TypeError('a webhook secret (whsec_…) is required');
  const parts = header.split(',').map((part) => {
    const index = part.indexOf('=');
    return index < 0 ? [part.trim(), ''] : [part.slice(0, index).trim(), part.slice(index + 1).trim()];
  });
  const stamp = parts.find(([key]) => key === 't')?.[1] ?? '';
  const signatures = parts.filter(([key, value]) => key === 'v1' && /^[0-9a-f]{64}$/.test(value)).map(([, value]) => Buffer.from(value, 'hex'));
  if (!/^\d+$/.test(stamp) || signatures.length === 0) throw new WebhookSignatureError('malformed Gateway-Signature header (expected t=<unix seconds>,v1=<hex>)', 'malformed_header');
  const timestamp = Number(stamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookSignatureError(`signature timestamp is outside the tolerance of ${tolerance} s`, 'timestamp_outside_tolerance');
  const body = toText(rawBody);
  const matches = secrets.some((key) => {
    const expected = Buffer.from(computeWebhookSignature(key, timestamp, body), 'hex');
    // Constant time; every v1 is compared (one per secret in force on the gateway's side).
    return signatures.map((signature) => timingSafeEqual(signature, expected)).includes(true);
  });
  if (!matches) throw new WebhookSignatureError('no signature matches the secret: the body was changed, or the secret is not this endpoint\'s', 'no_matching_signature');
}

/**
 * Stripe's `constructEvent`: verifies the delivery, then parses it into a typed event
 * (a union discriminated on `type`). Pass the raw body, the `Gateway-Signature` header and the
 * endpoint's secret (or `[newSecret, oldSecret]` while rotating).
 */
export function constructEvent<Event extends GatewayWebhookEvent = GatewayWebhookEvent>(rawBody: RawBody, signatureHeader: SignatureHeader, secret: string | readonly string[], options: VerifyOptions = {}): Event {
  verifyWebhookSignature(rawBody, signatureHeader, secret, options);
  let event: unknown;
  try {
    event = JSON.parse(toText(rawBody));
  } catch {
    throw new WebhookSignatureError('the body is not JSON', 'invalid_payload');
  }
  const shape = event as Partial<GatewayWebhookEvent> | null;
  if (typeof shape !== 'object' || shape === null || typeof shape.id !== 'string' || typeof shape.type !== 'string' || typeof shape.data !== 'object') {
    throw new WebhookSignatureError('the body is not a gateway event ({ id, type, created_at, data })', 'invalid_payload');
  }
  return event as Event;
}

/** The webhook helpers under one name, as `Webhooks.constructEvent(...)`. */
export const Webhooks = {
  constructEvent,
  verifySignature: verifyWebhookSignature,
  generateSignatureHeader: generateWebhookSignatureHeader,
  headers: WEBHOOK_HEADERS,
  DEFAULT_TOLERANCE_SECONDS: DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
} as const;
