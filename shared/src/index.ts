export * from './enums.js';
export * from './topics.js';
export * from './geometry.js';
export * from './protocol.js';
export * from './codes.js';
export * from './redact.js';
