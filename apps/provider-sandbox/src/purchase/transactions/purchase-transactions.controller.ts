import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { IntegerIdPipe } from '../../integer-id.pipe.js';
import { notFound } from '../../sandbox-errors.js';
import { pageOf, pageRequestOf } from '../pagination.js';
import { purchaseTransactionView } from './purchase-transaction.js';
import { PurchaseTransactions } from './purchase-transactions.service.js';

@Controller('dvs/v1/transactions')
export class PurchaseTransactionsController {
  constructor(private readonly transactions: PurchaseTransactions) {}

  @Post()
  async create(@Body() body: unknown) {
    return purchaseTransactionView(await this.transactions.create(body));
  }

  /** DVS search: `?external_id=` answers a list of zero or one transaction. */
  @Get()
  search(
    @Res({ passthrough: true }) response: Response,
    @Query('external_id') externalId?: string,
    @Query('page') page?: string,
    @Query('per_page') perPage?: string,
  ) {
    const matching =
      externalId === undefined
        ? this.transactions.all().reverse()
        : [this.transactions.findByExternalId(externalId)].filter((found) => found !== undefined);
    return pageOf(matching, pageRequestOf(page, perPage), response).map((transaction) => this.transactions.read(transaction));
  }

  @Get(':id')
  get(@Param('id', IntegerIdPipe) id: number) {
    const transaction = this.transactions.get(id);
    if (!transaction) throw notFound('transaction');
    return this.transactions.read(transaction);
  }
}
