export * from './gateway-env.js';
export * from './load-config.js';
export * from './config.module.js';
export * from './config-groups.js';
