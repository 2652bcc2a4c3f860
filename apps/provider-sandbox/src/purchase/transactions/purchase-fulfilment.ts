import { randomBytes, randomInt } from 'node:crypto';

export interface PinFulfilment {
  kind: 'pin';
  code: string;
  serial: string;
}

export interface EsimFulfilment {
  kind: 'esim';
  iccid: string;
  smdp_address: string;
  /** LPA activation code; the QR payload is the same string, as GSMA SGP.22 defines it. */
  activation_code: string;
  qr_code_payload: string;
}

export type PurchaseFulfilment = PinFulfilment | EsimFulfilment;

const SMDP_ADDRESS = 'smdp.sandbox.example';

// PINs and activation codes are secrets at a real provider, so even the sandbox does not make them guessable.
export function issuePin(): PinFulfilment {
  return { kind: 'pin', code: randomDigits(16), serial: `SN${randomDigits(12)}` };
}

export function issueEsim(): EsimFulfilment {
  const iccidBody = `8927${randomDigits(14)}`;
  const iccid = iccidBody + luhnCheckDigit(iccidBody);
  const matchingId = (randomBytes(8).toString('hex').toUpperCase().match(/.{4}/g) ?? []).join('-');
  const activationCode = `LPA:1$${SMDP_ADDRESS}$${matchingId}`;
  return { kind: 'esim', iccid, smdp_address: SMDP_ADDRESS, activation_code: activationCode, qr_code_payload: activationCode };
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
