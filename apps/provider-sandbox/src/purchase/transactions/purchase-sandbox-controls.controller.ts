import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { JsonBody } from '../../json-body.js';
import { notFound } from '../../sandbox-errors.js';
import { purchaseTransactionView } from './purchase-transaction.js';
import { PurchaseTransactions } from './purchase-transactions.service.js';

/** Sandbox-only controls of purchase scenarios (no real provider has them); behind the API key. */
@Controller('__sandbox/purchase')
export class PurchaseSandboxControlsController {
  constructor(private readonly transactions: PurchaseTransactions) {}

  /**
   * Test value 09: the provider carries out, now, a create it answered with HTTP 500. Tests call
   * this once the gateway has failed the purchase, so the creation is late by construction.
   */
  @Post('late-create')
  @HttpCode(201)
  lateCreate(@Body() raw: unknown) {
    const externalId = JsonBody.of(raw).requiredString('external_id', /^\S{1,100}$/);
    const created = this.transactions.createLate(externalId);
    if (!created) throw notFound('held create for this external_id');
    return purchaseTransactionView(created);
  }

  /**
   * Test value 05: the provider gives a transaction that stayed SUBMITTED its final answer now
   * (no callback), so tests can show a lookup (the worker's, or staff's "check now") resolving
   * a purchase in review. Body `{ "external_id", "status": "COMPLETED" | "DECLINED" }`.
   */
  @Post('settle-late')
  @HttpCode(200)
  settleLate(@Body() raw: unknown) {
    const body = JsonBody.of(raw);
    const externalId = body.requiredString('external_id', /^\S{1,100}$/);
    const status = body.requiredString('status', /^(COMPLETED|DECLINED)$/) as 'COMPLETED' | 'DECLINED';
    const settled = this.transactions.settleLate(externalId, status);
    if (!settled) throw notFound('submitted transaction for this external_id');
    return purchaseTransactionView(settled);
  }
}
