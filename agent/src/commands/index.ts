export { applyCommand, applySnapshot, type ApplyResult, type SnapshotResult } from './apply.js';
export { dropPendingCellOpen, judgeCellOpenAge, pendingCellOpens, type CellOpenRefusal, type PendingCellOpen } from './cell-open.js';
