import { randomBytes, randomInt } from 'node:crypto';
import type { ProviderTransactionWire } from '#providers';

/** What a completed PIN or eSIM product delivers, exactly as the provider's transaction JSON carries it. */
export type PurchaseFulfilment = Pick<ProviderTransactionWire, 'pin' | 'esim'>;

const SMDP_ADDRESS = 'smdp.sandbox.example';

// PINs and activation codes are secrets at a real provider, so even the sandbox does not make them guessable.
export function issuePin(): PurchaseFulfilment {
  return { pin: { code: randomDigits(16), serial: `SN${randomDigits(12)}` }, esim: null };
}

/** The LPA activation code is also the QR payload, as GSMA SGP.22 defines it. */
export function issueEsim(): PurchaseFulfilment {
  const iccidBody = `8927${randomDigits(14)}`;
  const iccid = iccidBody + luhnCheckDigit(iccidBody);
  const matchingId = (randomBytes(8).toString('hex').toUpperCase().match(/.{4}/g) ?? []).join('-');
  const activationCode = `LPA:1$${SMDP_ADDRESS}$${matchingId}`;
  return { pin: null, esim: { iccid, smdp_address: SMDP_ADDRESS, activation_code: activationCode, qr_code_payload: activationCode } };
}

function randomDigits(length: number): string {
  return Array.from({ length }, () => randomInt(10)).join('');
}

/** ICCIDs end in a Luhn check digit (ITU-T E.118). */
function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return String((10 - (sum % 10)) % 10);
}
