export * from './purchase-errors.js';
