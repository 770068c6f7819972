export { applyCommand, applySnapshot, type ApplyResult, type SnapshotResult } from './apply.js';
export { dropPendingCellOpen, judgeCellOpenAge, pendingCellOpens, type CellOpenRefusal, type PendingCellOpen } from './cell-open.js';
export { dropPendingHandover, markHandoverStarted, pendingHandovers, type PendingHandover } from './order-handover.js';
