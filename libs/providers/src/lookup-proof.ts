/**
 * Consecutive "not found" lookups, each made after the settle period, that prove the provider never
 * received a purchase or a payout (one "not found" may be a provider that has not indexed it yet).
 * Both domains fail on this proof, so it is defined once, here, beside the clients that ask.
 */
export const NOT_FOUND_PROOF_STREAK = 2;
