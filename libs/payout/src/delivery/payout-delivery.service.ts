import { Injectable } from '@nestjs/common';
import { FieldEncryption } from '#common';
import type { VendorPrincipal } from '#auth';
import { methodDefinition, type PayoutMethod } from '../model/payout-method-catalogue.js';
import { PayoutNotPaidError } from '../model/payout-errors.js';
import { deliveryContext, type DeliveryReadChannel, type PayoutRecord, type StoredDelivery } from '../model/payout-record.js';
import type { DeliveryView } from '../model/payout-view.js';
import { PayoutEvidenceRepository } from '../persistence/payout-evidence.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';

export const DELIVERY_SCOPE = 'payouts:delivery';

/** The Delivery of a payout without codes: every field null. */
const NO_DELIVERY: DeliveryView = Object.freeze({ pin: null, serial: null, instructions: null, expires_at: null });

/**
 * PINs and serials leave the service only here: through the delivery endpoint, or embedded in a
 * payout response for a token holding `payouts:delivery`. Every read writes an audit row naming
 * the token, the payout and the channel.
 */
@Injectable()
export class PayoutDeliveryService {
  constructor(
    private readonly payouts: PayoutRepository,
    private readonly evidence: PayoutEvidenceRepository,
    private readonly encryption: FieldEncryption,
  ) {}

  /**
   * `GET /payouts/{reference}/delivery`: 404 unknown, 409 PAYOUT_NOT_PAID unless paid. A paid
   * bank credit (`rtc_eft`, "no codes" in the contract) answers the Delivery with every field null.
   */
  async readDelivery(principal: VendorPrincipal, reference: string): Promise<DeliveryView> {
    const payout = await this.payouts.requireByReference(principal.vendorId, reference);
    if (payout.status !== 'paid') throw new PayoutNotPaidError();
    const delivery = methodDefinition(payout.method).delivery === null ? NO_DELIVERY : this.decrypt(payout);
    await this.audit(principal, [payout.id], 'delivery_endpoint');
    return delivery;
  }

  /** Deliveries to embed in payout responses: only for a token with the scope, only for paid payouts with codes. */
  async embeddable(principal: VendorPrincipal, payouts: readonly PayoutRecord[], channel: DeliveryReadChannel): Promise<Map<string, DeliveryView>> {
    const shown = new Map<string, DeliveryView>();
    for (const payout of payouts) {
      if (payout.status === 'paid' && this.mayEmbed(principal, payout.method)) shown.set(payout.id, this.decrypt(payout));
    }
    await this.audit(principal, [...shown.keys()], channel);
    return shown;
  }

  /**
   * The audit row a response would write if the payout (of `method`) it shows is paid, for a
   * writer that records it together with the payment (PayoutOutcomesService.applySubmissionPayment);
   * null when such a response embeds no delivery.
   */
  auditIfPaid(principal: VendorPrincipal, method: PayoutMethod, channel: DeliveryReadChannel): { tokenId: string; channel: DeliveryReadChannel } | null {
    return this.mayEmbed(principal, method) ? { tokenId: principal.tokenId, channel } : null;
  }

  /** The delivery to embed for a paid payout whose read was audited with its payment (auditIfPaid). */
  embeddedAudited(principal: VendorPrincipal, payout: PayoutRecord): DeliveryView | null {
    return payout.status === 'paid' && this.mayEmbed(principal, payout.method) ? this.decrypt(payout) : null;
  }

  private mayEmbed(principal: VendorPrincipal, method: PayoutMethod): boolean {
    return principal.abilities.includes(DELIVERY_SCOPE) && methodDefinition(method).delivery !== null;
  }

  private decrypt(payout: PayoutRecord): DeliveryView {
    if (payout.deliveryEncrypted === null) return NO_DELIVERY;
    return this.encryption.decryptJson<StoredDelivery>(payout.deliveryEncrypted, deliveryContext(payout.id));
  }

  private async audit(principal: VendorPrincipal, payoutIds: readonly string[], channel: DeliveryReadChannel): Promise<void> {
    if (payoutIds.length === 0) return;
    await this.evidence.recordDeliveryReads({ vendorId: principal.vendorId, tokenId: principal.tokenId, channel }, payoutIds);
  }
}
