import type { StoredRecipient } from './payout-request.js';

/**
 * A recipient as a vendor's people may see it after the payout was sent: enough to tell which
 * person and account it went to, never enough to reuse (the identity number and date of birth are
 * left out, the rest keeps its first letter or last digits). The one masking rule for every
 * surface that shows a recipient, so none of them shows more than another.
 */
export interface MaskedRecipientView {
  name: string;
  phone: string;
  email: string | null;
  id_type: StoredRecipient['id_type'];
  bank_account: { bank_name: string; account_number: string; account_name: string } | null;
}

/** `Thandiwe Mokoena` → `T******* M******`: each word's first letter, one star per further character. */
function maskedName(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => {
      const [first, ...rest] = [...word];
      return first + '*'.repeat(rest.length);
    })
    .join(' ');
}

/** Every character but the last `visible` replaced with a star (characters, not UTF-16 units). */
function maskedTail(text: string, visible: number): string {
  const characters = [...text];
  const shown = Math.min(visible, Math.max(0, characters.length - 2));
  return '*'.repeat(characters.length - shown) + characters.slice(characters.length - shown).join('');
}

/** `someone@example.com` → `s******@example.com`: the domain says which organisation, the local part stays hidden. */
function maskedEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at <= 0 ? maskedTail(email, 0) : `${maskedName(email.slice(0, at))}${email.slice(at)}`;
}

export function maskedRecipientOf(recipient: StoredRecipient): MaskedRecipientView {
  return {
    name: maskedName([recipient.first_name, recipient.middle_name, recipient.surname].filter(Boolean).join(' ')),
    phone: maskedTail(recipient.phone, 3),
    email: recipient.email === null ? null : maskedEmail(recipient.email),
    id_type: recipient.id_type,
    bank_account: recipient.bank_account
      ? { bank_name: recipient.bank_account.bank_name, account_number: maskedTail(recipient.bank_account.account_number, 4), account_name: maskedName(recipient.bank_account.account_name) }
      : null,
  };
}
