// Session, invite and CSRF secrets are shared with the staff back-office (#web).
export { EMAIL_PATTERN, normaliseEmail, randomSecret, SECRET_PATTERN, secretHash } from '#web';
