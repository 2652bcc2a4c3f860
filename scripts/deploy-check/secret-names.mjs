// Which setting names and values count as secrets, for every check in this folder.

// PASSWORD, TOKEN, API_KEY, ENCRYPTION_KEYS, CALLBACK_TOKEN_PREVIOUS, ... but not ENCRYPTION_ACTIVE_KEY_ID.
const SECRET_NAME = /(^|_)(PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|PRIVATE_KEY|KEYS?|CREDENTIALS?)(_PREVIOUS|_NEXT|_OLD)?$/;
// Connection URLs carry a password in production, so they are secrets whatever their name says.
const CREDENTIAL_URL_NAMES = new Set(['DATABASE_URL', 'REDIS_URL']);

export function isSecretLikeName(name) {
  return SECRET_NAME.test(name) || CREDENTIAL_URL_NAMES.has(name);
}

/** A URL with user:password@ in it is a credential, whatever the variable is called. */
export function hasEmbeddedCredentials(value) {
  return typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]+:[^/@\s]+@/i.test(value);
}
