export * from './rate-limit.interceptor.js';
export * from './rate-limit.module.js';
