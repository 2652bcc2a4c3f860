export * from './start-service.js';
