import { applyDecorators, HttpCode, Post, type Type } from '@nestjs/common';
import { ApiOperation, type ApiOperationOptions } from '@nestjs/swagger';
import { RequireScopes } from '#auth';
import { RateLimitBucketOf } from '#common';
import { ApiEnvelope, ApiPayoutErrors } from '../openapi/payout-openapi.js';

/** The refusals a payout write can answer: its creation checks, which its dry run answers too. */
type CreationErrors = Parameters<typeof ApiPayoutErrors>;

/** What a creation route (and its dry run) documents: the operation, the answer's schema and example, the refusals. */
interface CreationRoute {
  operation: ApiOperationOptions;
  schema: Type<unknown>;
  /** The `data` of the documented answer; none: the schema alone. */
  example?: unknown;
  errors: Readonly<CreationErrors>;
}

// The decorators below are listed in the order a stack of them is applied (the bottom one first),
// so the responses of each operation stay in the order the document has always listed them.

/** `POST` of a payout write (a payout, a batch): the write scope, answered with `status`. */
export function PayoutCreationRoute(status: 200 | 202, route: CreationRoute) {
  return applyDecorators(ApiPayoutErrors(...route.errors), ApiEnvelope(status, route.schema, envelopeExample(route)), ApiOperation(route.operation), RequireScopes('payouts:write'), HttpCode(status), Post());
}

/**
 * `POST …/validate`: the dry run of a payout write. The same scope and refusals as the real call,
 * answered with 200, and a rate bucket of its own so that dry runs never use up the writes.
 */
export function PayoutDryRunRoute(route: CreationRoute) {
  return applyDecorators(
    ApiPayoutErrors(...route.errors),
    ApiEnvelope(200, route.schema, envelopeExample(route)),
    ApiOperation(route.operation),
    RateLimitBucketOf('validate'),
    RequireScopes('payouts:write'),
    HttpCode(200),
    Post('validate'),
  );
}

function envelopeExample(route: CreationRoute): { data?: unknown } {
  return route.example === undefined ? {} : { data: route.example };
}
