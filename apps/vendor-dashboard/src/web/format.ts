// Money and time formatting are shared with the staff back-office.
export { money, when } from '#web';
