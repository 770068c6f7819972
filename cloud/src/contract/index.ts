export * from './common.js';
export * from './orders.js';
export * from './lockers.js';
export * from './couriers.js';
