/** A vendor's reference (and an Idempotency-Key): 1 to 128 letters, digits or `_ . : -`. */
export const REFERENCE_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
