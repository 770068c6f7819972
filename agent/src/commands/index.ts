export { applyCommand, applySnapshot, type ApplyResult, type SnapshotResult } from './apply.js';
