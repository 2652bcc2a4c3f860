export * from './domain-error.js';
export * from './error-catalogue.js';
