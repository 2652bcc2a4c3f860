import { daysInMonth } from '#common';

/**
 * South African ID number: YYMMDD SSSS C A Z
 * (birth date, sequence, citizenship 0 citizen / 1 permanent resident / 2 refugee,
 * a historic digit, Luhn check digit).
 */

/** Luhn (mod 10) check over a string of digits, the last digit being the check digit. */
export function luhnCheck(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  for (let offsetFromRight = 0; offsetFromRight < digits.length; offsetFromRight++) {
    let digit = digits.charCodeAt(digits.length - 1 - offsetFromRight) - 48;
    if (offsetFromRight % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The two-digit year does not say the century, so a date real in 19YY or 20YY is accepted. */
function isRealBirthDate(yymmdd: string): boolean {
  const yy = Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(1900 + yy, month) || day <= daysInMonth(2000 + yy, month);
}

export function isValidRsaIdNumber(value: string): boolean {
  if (typeof value !== 'string' || !/^[0-9]{13}$/.test(value)) return false;
  if (!isRealBirthDate(value.slice(0, 6))) return false;
  if (!['0', '1', '2'].includes(value[10])) return false;
  return luhnCheck(value);
}
