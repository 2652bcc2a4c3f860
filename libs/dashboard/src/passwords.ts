// The password policy and argon2id hashing are shared with the staff back-office (#web).
export { DUMMY_PASSWORD_HASH, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblems, verifyPassword } from '#web';
