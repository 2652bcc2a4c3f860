import { Injectable } from '@nestjs/common';

/**
 * The time the settlement schedule and the close go by: which days are finished, which
 * deadlines passed. The system clock; one instance per process, so a test can move it for the
 * settlement side alone (the ledger and the providers keep their own time).
 */
@Injectable()
export class SettlementClock {
  now(): Date {
    return new Date();
  }
}
