/**
 * The locker's one screen session: courier, customer and technician flows as a small state machine
 * that the screen's JSON API drives and the door supervisor and scanner feed. One person stands at the
 * locker at a time, so there is one session; actions run one after another, never interleaved.
 */
import type { Logger } from 'pino';
import { codeHash } from '../../../shared/src/codes.js';
import type { CodeKind } from '../../../shared/src/enums.js';
import { cellVolume } from '../../../shared/src/geometry.js';
import type { CourierGrant, ParcelIntent } from '../../../shared/src/protocol.js';
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import { chooseCell, type CellSituation } from './cell-choice.js';
import type { DoorChange, DoorSupervisor } from './doors.js';
import { flaggedCells, recordInventory, type FlaggedCell } from './inventory.js';
import type { Keypad } from './keypad.js';
import type { CellOperations } from './operations.js';
import { checkChosenLoad, checkLoad, orderForPickup, pickupFor, returnsFor, type CellParcels, type LoadDecision, type LoadTime } from './rules.js';
import { lockerDay, lockerZone } from './time.js';

export type KioskView =
  | { screen: 'start' }
  | { screen: 'code'; kind: CodeKind }
  | { screen: 'courier'; notice: CourierNotice | null }
  /** Several parcels the courier may load answer to the scanned barcode: the courier picks the order. */
  | { screen: 'load_choice'; barcode: string; candidates: LoadCandidate[] }
  | {
      screen: 'load_open';
      cellId: number;
      orderId: string;
      barcode: string;
      /** Cells whose doors failed before this one opened. */
      failedCells: number[];
      /** The courier will not leave the parcel here: `bigger` opens a bigger cell once this one is closed. */
      aborted: 'bigger' | 'cancel' | null;
    }
  | { screen: 'take_open'; kind: 'pickup' | 'return'; cells: number[]; failedCells: number[] }
  /** A technician's service menu: the flagged cells, needs_inventory first, then faulty. */
  | { screen: 'service'; cells: FlaggedCell[]; notice: ServiceNotice | null }
  /**
   * A flagged cell a technician opened: `barcode` is what was scanned or typed since; the finding
   * is recorded once the door is closed again (`doorOpen` false).
   */
  | { screen: 'inventory'; cellId: number; doorOpen: boolean; barcode: string | null };

/** What the technician's last inventory recorded; `placed`: the locker knows the parcel's order. */
export type ServiceNotice = { kind: 'inventoried'; cellId: number; outcome: 'empty' | 'found'; barcode: string | null; placed: boolean };

/** One order a scanned barcode may belong to, as the courier can tell it from the parcel's label. */
export interface LoadCandidate {
  orderId: string;
  externalId: string;
  number: string | null;
  marketplaceId: string;
}

export type CourierNotice = { kind: 'loaded'; cellId: number; barcode: string } | { kind: 'returned'; count: number };

export type KioskError =
  | { code: 'wrong_code'; waitMs: number }
  | { code: 'wait'; waitMs: number }
  | { code: 'code_expired' }
  | { code: 'session_expired' }
  | { code: 'unknown_parcel' }
  | { code: 'already_loaded'; cellId: number }
  | { code: 'not_loadable' }
  | { code: 'not_deliverable_yet'; date: string }
  /** The chosen order is not one the screen offered for the scanned barcode. */
  | { code: 'not_a_candidate' }
  | { code: 'no_free_cell' }
  | { code: 'door_fault'; cells: number[] }
  /** The board did not answer: these doors may have opened; the cells are set aside for inspection. */
  | { code: 'door_unknown'; cells: number[] }
  | { code: 'nothing_to_collect' }
  | { code: 'nothing_to_pick_up' }
  /** The technician chose a cell that is not (or no longer) flagged, or one an operation holds. */
  | { code: 'not_flagged' }
  /** "Parcel found" with no barcode scanned or typed. */
  | { code: 'no_barcode' }
  | { code: 'internal' };

export interface KioskState {
  view: KioskView;
  error: KioskError | null;
  /** An action (a door opening) is under way. */
  busy: boolean;
  /** Wait before the next code of each kind is checked, ms. */
  waitMs: Record<CodeKind, number>;
  /** Parcels the signed-in courier may collect. */
  returns: number;
}

export interface KioskSettings {
  lockerId: string;
  idleMs: number;
  maxCellsPerParcel: number;
}

interface Placement {
  orderId: string;
  parcel: ParcelIntent;
  exclude: Set<number>;
  failedCells: number[];
  minVolumeExclusive?: number;
}

export class Kiosk {
  private view: KioskView = { screen: 'start' };
  private error: KioskError | null = null;
  private grantId: string | null = null;
  /** The service code a technician signed in with. */
  private serviceCodeId: string | null = null;
  private busy = false;
  private lastActivity = 0;
  private queue: Promise<void> = Promise.resolve();
  private started = false;
  private readonly onChange = (c: DoorChange): void => void this.run(() => this.doorChanged(c), false);
  private readonly onTick = (): void => void this.run(() => Promise.resolve(this.tick()), false);

  constructor(
    private readonly store: LockerStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly keypad: Keypad,
    private readonly ops: CellOperations,
    private readonly doors: DoorSupervisor,
    private readonly settings: KioskSettings,
  ) {}

  start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.lastActivity = this.clock.now();
      this.doors.on('change', this.onChange);
      this.doors.on('tick', this.onTick);
    }
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.doors.off('change', this.onChange);
    this.doors.off('tick', this.onTick);
    await this.queue;
  }

  /** Nobody is at the screen: the start screen, nothing under way, untouched for `forMs`. */
  unattended(forMs: number): boolean {
    return this.view.screen === 'start' && !this.busy && this.clock.now() - this.lastActivity >= forMs;
  }

  state(): KioskState {
    const grant = this.activeGrant();
    return {
      view: this.view,
      error: this.error,
      busy: this.busy,
      waitMs: { courier: this.keypad.waitMs('courier'), customer: this.keypad.waitMs('customer'), service: this.keypad.waitMs('service') },
      returns: grant ? returnsFor(this.store, grant).reduce((n, c) => n + c.parcels.length, 0) : 0,
    };
  }

  // --- actions (each waits for the ones before it) -------------------------------------------------

  choose(kind: CodeKind): Promise<KioskState> {
    return this.act(() => {
      if (this.view.screen === 'start' || this.view.screen === 'code') this.view = { screen: 'code', kind };
    });
  }

  submitCode(kind: CodeKind, code: string): Promise<KioskState> {
    return this.act(async () => {
      if (this.view.screen !== 'start' && this.view.screen !== 'code') return;
      this.view = { screen: 'code', kind };
      const wait = this.keypad.waitMs(kind);
      if (wait > 0) {
        this.error = { code: 'wait', waitMs: wait };
        return;
      }
      if (kind === 'courier') this.courierCode(code);
      else if (kind === 'service') this.serviceCode(code);
      else await this.customerCode(code);
    });
  }

  /**
   * A barcode from the scanner or typed on the screen; only a signed-in courier's scans count. A
   * scan while a choice is shown replaces it (the courier moved on to another parcel).
   */
  scan(barcode: string): Promise<KioskState> {
    return this.act(async () => {
      if (this.view.screen === 'inventory') {
        if (this.requireService()) this.view = { ...this.view, barcode: barcode.trim() };
        return;
      }
      if (this.view.screen !== 'courier' && this.view.screen !== 'load_choice') return;
      const grant = this.requireGrant();
      if (!grant) return;
      await this.load(grant, barcode.trim());
    });
  }

  /** The courier's pick among the orders offered for the scanned barcode. */
  chooseOrder(orderId: string): Promise<KioskState> {
    return this.act(async () => {
      const v = this.view;
      if (v.screen !== 'load_choice') return;
      if (!v.candidates.some((c) => c.orderId === orderId)) {
        this.error = { code: 'not_a_candidate' };
        return;
      }
      const grant = this.requireGrant();
      if (!grant) return;
      this.view = { screen: 'courier', notice: null };
      await this.loadChecked(grant, checkChosenLoad(this.store, grant, v.barcode, orderId, this.loadTime()));
    });
  }

  collectReturns(): Promise<KioskState> {
    return this.act(async () => {
      if (this.view.screen !== 'courier') return;
      const grant = this.requireGrant();
      if (!grant) return;
      const cells = returnsFor(this.store, grant);
      if (cells.length === 0) {
        this.error = { code: 'nothing_to_collect' };
        return;
      }
      await this.openForTaking('return', cells, grant.grantId);
    });
  }

  /** A technician opens a flagged cell to look into it (an open supervised like any other). */
  openForInventory(cellId: number): Promise<KioskState> {
    return this.act(async () => {
      if (this.view.screen !== 'service' || !this.requireService()) return;
      const cell = this.store.cells.get(cellId);
      if (!cell || !flaggedCells(this.store).some((c) => c.cellId === cellId) || this.store.journal.busyCells().has(cellId)) {
        this.error = { code: 'not_flagged' };
        this.view = this.serviceMenu(null);
        return;
      }
      const seen: { outcome: 'opened' | 'jammed' | 'unknown' | 'failed' } = { outcome: 'failed' };
      await this.ops.openForService(cell, (o) => (seen.outcome = o));
      const { outcome } = seen;
      if (outcome === 'opened') this.view = { screen: 'inventory', cellId, doorOpen: true, barcode: null };
      else {
        this.view = this.serviceMenu(null);
        this.error = outcome === 'unknown' ? { code: 'door_unknown', cells: [cellId] } : { code: 'door_fault', cells: [cellId] };
      }
    });
  }

  /** The technician's finding in the opened cell, once its door is closed again. */
  recordInventory(outcome: 'empty' | 'found'): Promise<KioskState> {
    return this.act(() => {
      const v = this.view;
      if (v.screen !== 'inventory' || v.doorOpen) return;
      const codeId = this.requireService();
      if (!codeId) return;
      if (outcome === 'found' && !v.barcode) {
        this.error = { code: 'no_barcode' };
        return;
      }
      const finding = outcome === 'found' ? { outcome, barcode: v.barcode! } : { outcome };
      const r = recordInventory(this.store, this.clock.now(), v.cellId, finding, codeId);
      this.logger.info({ cellId: v.cellId, outcome, orderId: r.orderId, cleared: r.cleared }, 'cell inventoried');
      this.view = this.serviceMenu({ kind: 'inventoried', cellId: v.cellId, outcome, barcode: outcome === 'found' ? v.barcode : null, placed: r.orderId !== null });
    });
  }

  /** The open cell is too small: nothing is recorded when it closes, then a bigger one opens. */
  doesNotFit(): Promise<KioskState> {
    return this.abortLoad('bigger');
  }

  /** The courier keeps the parcel: nothing is recorded when the open cell closes. */
  cancelLoad(): Promise<KioskState> {
    return this.abortLoad('cancel');
  }

  /** Back: from a courier's open cells to the courier's menu, from a looked-into cell to the service menu, from anything else to the start. */
  back(): Promise<KioskState> {
    return this.act(() => {
      if (this.view.screen === 'inventory') {
        if (this.view.doorOpen) return; // the door decides
        if (this.requireService()) this.view = this.serviceMenu(null);
      } else if (this.view.screen === 'load_choice') this.view = { screen: 'courier', notice: null };
      else if (this.view.screen === 'load_open' || (this.view.screen === 'take_open' && this.view.kind === 'return')) {
        if (this.view.screen === 'load_open' && this.view.aborted === null) return; // the door decides
        this.view = { screen: 'courier', notice: null };
      } else this.reset();
    });
  }

  /** Sign out / start again. An open load keeps going: its door still decides. */
  home(): Promise<KioskState> {
    return this.act(() => this.reset());
  }

  // --- internals ------------------------------------------------------------------------------

  private act(fn: () => void | Promise<void>): Promise<KioskState> {
    return this.run(async () => {
      this.error = null;
      this.lastActivity = this.clock.now();
      await fn();
    }, true).then(() => this.state());
  }

  private run(fn: () => Promise<void>, busy: boolean): Promise<void> {
    const next = this.queue.then(async () => {
      if (busy) this.busy = true;
      try {
        await fn();
      } catch (err) {
        this.logger.error({ err }, 'kiosk action failed');
        this.error = { code: 'internal' };
      } finally {
        this.busy = false;
      }
    });
    this.queue = next;
    return next;
  }

  private reset(): void {
    this.view = { screen: 'start' };
    this.grantId = null;
    this.serviceCodeId = null;
  }

  private serviceMenu(notice: ServiceNotice | null): KioskView {
    return { screen: 'service', cells: flaggedCells(this.store), notice };
  }

  /** The signed-in technician's code id while the code lasts; an ended one ends the session. */
  private requireService(): string | null {
    const code = this.serviceCodeId === null ? null : this.store.serviceCodes.get(this.serviceCodeId);
    if (code && code.validUntil > this.clock.now()) return code.codeId;
    this.reset();
    this.error = { code: 'session_expired' };
    return null;
  }

  private serviceCode(code: string): void {
    const hash = codeHash('service', this.settings.lockerId, code);
    const valid = this.store.serviceCodes.valid(hash, this.clock.now());
    if (!valid) {
      const known = this.store.serviceCodes.known(hash);
      const waitMs = this.keypad.record('service', false, { outcome: known ? 'expired' : 'wrong', codeId: known?.codeId ?? null });
      this.error = known ? { code: 'code_expired' } : { code: 'wrong_code', waitMs };
      return;
    }
    this.keypad.record('service', true, { outcome: 'accepted', codeId: valid.codeId });
    this.serviceCodeId = valid.codeId;
    this.logger.info({ codeId: valid.codeId }, 'technician signed in');
    this.view = this.serviceMenu(null);
  }

  private activeGrant(): CourierGrant | null {
    if (this.grantId === null) return null;
    const grant = this.store.grants.get(this.grantId);
    return grant && grant.validUntil > this.clock.now() ? grant : null;
  }

  /** The signed-in courier's grant; a revoked or ended one ends the session. */
  private requireGrant(): CourierGrant | null {
    const grant = this.activeGrant();
    if (!grant) {
      this.reset();
      this.error = { code: 'session_expired' };
    }
    return grant;
  }

  private courierCode(code: string): void {
    const hash = codeHash('courier', this.settings.lockerId, code);
    const grant = this.store.grants.valid(hash, this.clock.now());
    if (!grant) {
      const expired = this.store.grants.knows(hash);
      const waitMs = this.keypad.record('courier', false);
      this.error = expired ? { code: 'code_expired' } : { code: 'wrong_code', waitMs };
      return;
    }
    this.keypad.record('courier', true);
    this.grantId = grant.grantId;
    this.view = { screen: 'courier', notice: null };
  }

  private async customerCode(code: string): Promise<void> {
    const order = orderForPickup(this.store, codeHash('customer', this.settings.lockerId, code));
    if (!order) {
      this.error = { code: 'wrong_code', waitMs: this.keypad.record('customer', false) };
      return;
    }
    this.keypad.record('customer', true);
    const cells = pickupFor(this.store, order);
    if (cells.length === 0) {
      this.reset();
      this.error = { code: 'nothing_to_pick_up' };
      return;
    }
    await this.openForTaking('pickup', cells, null);
  }

  private async openForTaking(kind: 'pickup' | 'return', cells: CellParcels[], grantId: string | null): Promise<void> {
    const opened: number[] = [];
    const failed: number[] = [];
    const unknown: number[] = [];
    for (const c of cells) {
      const cell = this.store.cells.get(c.cellId);
      const r = cell ? await this.ops.openForTaking(cell, c.parcels, grantId) : { ok: false as const, reason: 'no_reply' as const };
      (r.ok ? opened : failed).push(c.cellId);
      if (!r.ok && r.reason === 'unknown') unknown.push(c.cellId);
    }
    if (failed.length > 0) this.error = unknown.length > 0 ? { code: 'door_unknown', cells: unknown } : { code: 'door_fault', cells: failed };
    if (opened.length > 0) this.view = { screen: 'take_open', kind, cells: opened, failedCells: failed };
    else if (kind === 'pickup') this.reset();
  }

  private loadTime(): LoadTime {
    const now = this.clock.now();
    return { today: lockerDay(now, lockerZone(this.store)), now };
  }

  private async load(grant: CourierGrant, barcode: string): Promise<void> {
    if (this.view.screen === 'load_choice') this.view = { screen: 'courier', notice: null };
    const check = checkLoad(this.store, grant, barcode, this.loadTime());
    if (check.kind === 'choose') {
      const orderIds = check.candidates.map((c) => c.order.intent.orderId);
      // The operator hears of it: one barcode naming several of a courier's orders needs looking into.
      this.store.outbox.emit({ type: 'barcode.ambiguous', orderIds, grantId: grant.grantId });
      this.logger.warn({ orderIds, grantId: grant.grantId }, 'scanned barcode names several orders: the courier chooses');
      const candidates = check.candidates.map(({ order: { intent: o } }) => ({ orderId: o.orderId, externalId: o.externalId, number: o.number, marketplaceId: o.marketplaceId }));
      this.view = { screen: 'load_choice', barcode, candidates };
      return;
    }
    await this.loadChecked(grant, check);
  }

  private async loadChecked(grant: CourierGrant, check: LoadDecision): Promise<void> {
    if (check.kind === 'refused') this.error = check.refusal;
    else await this.place(grant, { orderId: check.order.intent.orderId, parcel: check.parcel, exclude: new Set(), failedCells: [] });
  }

  /** Opens a cell for the parcel; a door that fails is skipped for the next fitting cell. */
  private async place(grant: CourierGrant, p: Placement): Promise<void> {
    const depth = this.store.settings()?.depth;
    for (let i = 0; i < this.settings.maxCellsPerParcel && depth !== undefined; i++) {
      const choice = chooseCell(this.situations(), { ...p, depth });
      if (!choice) break;
      const cell = this.store.cells.get(choice.cellId)!;
      const r = await this.ops.openForLoad(cell, { orderId: p.orderId, barcode: p.parcel.barcode, grantId: grant.grantId });
      if (r.ok) {
        this.view = { screen: 'load_open', cellId: cell.id, orderId: p.orderId, barcode: p.parcel.barcode, failedCells: p.failedCells, aborted: null };
        return;
      }
      if (r.reason === 'unknown') {
        // The door may be open: no other cell for this parcel until someone has looked.
        this.view = { screen: 'courier', notice: null };
        this.error = { code: 'door_unknown', cells: [cell.id] };
        return;
      }
      p.exclude.add(cell.id);
      p.failedCells.push(cell.id);
    }
    this.view = { screen: 'courier', notice: null };
    this.error = p.failedCells.length > 0 ? { code: 'door_fault', cells: p.failedCells } : { code: 'no_free_cell' };
  }

  private situations(): CellSituation[] {
    const holds = new Map<number, Set<string>>();
    for (const f of this.store.parcels.inCells()) holds.set(f.cellId, new Set([...(holds.get(f.cellId) ?? []), f.orderId]));
    const reservations = this.store.orders.reservations();
    const busy = this.store.journal.busyCells();
    const offline = new Set(this.store.boards.offline().map((b) => `${b.bus}/${b.board}`));
    return this.store.cells.all().map((cell) => ({
      cell,
      holds: holds.get(cell.id) ?? new Set(),
      reservedFor: reservations.get(cell.id),
      busy: busy.has(cell.id),
      online: !offline.has(`${cell.bus}/${cell.board}`),
    }));
  }

  private abortLoad(how: 'bigger' | 'cancel'): Promise<KioskState> {
    return this.act(() => {
      if (this.view.screen !== 'load_open' || this.view.aborted !== null) return;
      this.ops.abortLoad(this.view.cellId);
      this.view = { ...this.view, aborted: how };
    });
  }

  private async doorChanged(c: DoorChange): Promise<void> {
    // Changes queue behind actions: judge by the door as it is now, not as it was when seen.
    if (!c.closed || this.store.cells.get(c.cellId)?.door === 'open') return;
    const v = this.view;
    if (v.screen === 'load_open' && v.cellId === c.cellId) {
      this.lastActivity = this.clock.now();
      const fact = this.store.parcels.get(v.orderId, v.barcode);
      if (fact?.state === 'in_cell' && fact.cellId === c.cellId) {
        this.view = { screen: 'courier', notice: { kind: 'loaded', cellId: c.cellId, barcode: v.barcode } };
        return;
      }
      this.view = { screen: 'courier', notice: null };
      const grant = this.activeGrant();
      const match = this.store.orders.get(v.orderId)?.intent.parcels.find((p) => p.barcode === v.barcode);
      const cell = this.store.cells.get(c.cellId);
      if (v.aborted === 'bigger' && grant && match && cell) {
        const depth = this.store.settings()?.depth ?? 0;
        this.busy = true;
        await this.place(grant, {
          orderId: v.orderId,
          parcel: match,
          exclude: new Set([c.cellId]),
          failedCells: [],
          minVolumeExclusive: cellVolume({ width: cell.width, height: cell.height, depth }),
        });
      }
      return;
    }
    if (v.screen === 'inventory' && v.cellId === c.cellId && v.doorOpen) {
      this.lastActivity = this.clock.now();
      this.view = { ...v, doorOpen: false };
      return;
    }
    if (v.screen === 'take_open' && v.cells.includes(c.cellId)) {
      this.lastActivity = this.clock.now();
      if (!v.cells.every((id) => this.store.cells.get(id)?.door !== 'open')) return;
      if (v.kind === 'pickup') this.reset();
      else this.view = { screen: 'courier', notice: { kind: 'returned', count: v.cells.length } };
    }
  }

  private tick(): void {
    if (this.view.screen === 'start') return;
    if (this.grantId !== null && !this.activeGrant() && this.view.screen !== 'load_open') {
      this.reset();
      this.error = { code: 'session_expired' };
      return;
    }
    const inventoryOpen = this.view.screen === 'inventory' && this.view.doorOpen;
    if (this.serviceCodeId !== null && !inventoryOpen && (this.store.serviceCodes.get(this.serviceCodeId)?.validUntil ?? 0) <= this.clock.now()) {
      this.reset();
      this.error = { code: 'session_expired' };
      return;
    }
    const waiting = this.view.screen === 'load_open' || this.view.screen === 'take_open' || inventoryOpen;
    if (!waiting && this.clock.now() - this.lastActivity >= this.settings.idleMs) {
      this.reset();
      this.error = null;
    }
  }
}
