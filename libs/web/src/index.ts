// Building blocks of the server-rendered, signed-in web apps (the vendor dashboard and the staff
// back-office): pure code with no SQL, so both apps share one implementation of each.
export * from './html.js';
export * from './format.js';
export * from './forms.js';
export * from './passwords.js';
export * from './password-forms.js';
export * from './secrets.js';
export * from './totp.js';
export * from './cookies.js';
export * from './requests.js';
export * from './sign-in-limiter.js';
export * from './server-sessions.js';
export * from './assets.js';
export * from './assets-controller.js';
export * from './page.js';
export * from './page-errors.js';
export * from './sign-in-gate.js';
export * from './sign-in-flow.js';
export * from './page-guard.js';
export * from './flash.js';
export * from './mailer.js';
