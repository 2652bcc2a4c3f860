export * from './logging.js';
export * from './metrics.js';
export * from './health.js';
export * from './observability.module.js';
