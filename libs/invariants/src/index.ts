export * from './persistence/invariant-checker.js';
