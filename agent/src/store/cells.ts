/** Cells: the layout from the cloud, their flags and the last known door state. */
import { CELL_FLAGS, type CellFlag } from '../../../shared/src/enums.js';
import type { CellConfig } from '../../../shared/src/protocol.js';
import type { Sqlite } from './database.js';

export type DoorState = 'open' | 'closed' | 'unknown';

export interface Cell {
  id: number;
  width: number;
  height: number;
  bus: string;
  board: number;
  lock: number;
  cloudFlags: CellFlag[];
  localFlags: CellFlag[];
  /** What allocation honours: the cloud's flags plus the ones the locker raised itself. */
  flags: CellFlag[];
  inLayout: boolean;
  door: DoorState;
  doorSince: number | null;
  doorExpected: boolean;
  /** Alarms raised for the current opening (DOOR_ALARM bits); a `closed` alarm follows any of them. */
  doorAlarm: number;
}

/** Unconfirmed: an unlock of ours went out and the door could not be read; its state is unknown. */
export const DOOR_ALARM = { OpenedUnexpectedly: 1, LeftOpen: 2, Unconfirmed: 4 } as const;

interface CellRow {
  id: number;
  width: number;
  height: number;
  bus: string;
  board: number;
  lock: number;
  cloud_flags: string;
  local_flags: string;
  in_layout: number;
  door: DoorState;
  door_since: number | null;
  door_expected: number;
  door_alarm: number;
}

function flagsOf(json: string): CellFlag[] {
  const list = JSON.parse(json) as string[];
  return CELL_FLAGS.filter((f) => list.includes(f));
}

function toCell(r: CellRow): Cell {
  const cloudFlags = flagsOf(r.cloud_flags);
  const localFlags = flagsOf(r.local_flags);
  return {
    id: r.id,
    width: r.width,
    height: r.height,
    bus: r.bus,
    board: r.board,
    lock: r.lock,
    cloudFlags,
    localFlags,
    flags: CELL_FLAGS.filter((f) => cloudFlags.includes(f) || localFlags.includes(f)),
    inLayout: r.in_layout === 1,
    door: r.door,
    doorSince: r.door_since,
    doorExpected: r.door_expected === 1,
    doorAlarm: r.door_alarm,
  };
}

export class Cells {
  constructor(private readonly db: Sqlite) {}

  all(): Cell[] {
    return (this.db.prepare('select * from cells order by id').all() as CellRow[]).map(toCell);
  }

  get(id: number): Cell | null {
    const row = this.db.prepare('select * from cells where id = ?').get(id) as CellRow | undefined;
    return row ? toCell(row) : null;
  }

  byAddress(bus: string, board: number, lock: number): Cell | null {
    const row = this.db.prepare('select * from cells where bus = ? and board = ? and lock = ?').get(bus, board, lock) as CellRow | undefined;
    return row ? toCell(row) : null;
  }

  /**
   * Replaces the layout. Cells that left it are deleted unless a parcel is still in them: those stay
   * (in_layout = 0) so the parcel can be taken out, and go when emptied.
   */
  setLayout(cells: readonly CellConfig[]): void {
    const upsert = this.db.prepare(`
      insert into cells (id, width, height, bus, board, lock, cloud_flags, in_layout)
      values (@id, @width, @height, @bus, @board, @lock, @flags, 1)
      on conflict (id) do update set width = excluded.width, height = excluded.height, bus = excluded.bus,
        board = excluded.board, lock = excluded.lock, cloud_flags = excluded.cloud_flags, in_layout = 1`);
    const ids = new Set(cells.map((c) => c.id));
    for (const c of cells) {
      upsert.run({ ...c, flags: JSON.stringify(c.flags) });
      this.dropEchoedLocalFlags(c.id, c.flags);
    }
    for (const cell of this.all()) {
      if (ids.has(cell.id)) continue;
      if (this.occupied(cell.id)) this.db.prepare('update cells set in_layout = 0 where id = ?').run(cell.id);
      else this.db.prepare('delete from cells where id = ?').run(cell.id);
    }
  }

  /** Removes cells that left the layout once they are empty. */
  dropIfRetiredAndEmpty(id: number): void {
    if (!this.occupied(id)) this.db.prepare('delete from cells where id = ? and in_layout = 0').run(id);
  }

  private occupied(id: number): boolean {
    return this.db.prepare("select 1 from parcels where cell_id = ? and state = 'in_cell' limit 1").get(id) !== undefined;
  }

  /** The cloud's flags for a cell; local flags the cloud now carries are handed over to it. */
  setCloudFlags(id: number, flags: readonly CellFlag[]): boolean {
    const info = this.db.prepare('update cells set cloud_flags = ? where id = ?').run(JSON.stringify(flags), id);
    if (info.changes === 0) return false;
    this.dropEchoedLocalFlags(id, flags);
    return true;
  }

  private dropEchoedLocalFlags(id: number, cloudFlags: readonly CellFlag[]): void {
    const cell = this.get(id);
    if (!cell) return;
    const left = cell.localFlags.filter((f) => !cloudFlags.includes(f));
    if (left.length !== cell.localFlags.length) this.db.prepare('update cells set local_flags = ? where id = ?').run(JSON.stringify(left), id);
  }

  /** Raises a flag the locker found itself; returns the new effective flags, or null if nothing changed. */
  raiseLocalFlag(id: number, flag: CellFlag): CellFlag[] | null {
    const cell = this.get(id);
    if (!cell || cell.flags.includes(flag)) return null;
    this.db.prepare('update cells set local_flags = ? where id = ?').run(JSON.stringify([...cell.localFlags, flag]), id);
    return this.get(id)!.flags;
  }

  /**
   * A technician looked into the cell: the flag leaves both lists at once (the cloud, told by the
   * `cell.inventoried` event, sends its own list without it). Returns whether it was there.
   */
  clearInspectedFlag(id: number, flag: CellFlag): boolean {
    const cell = this.get(id);
    if (!cell || !cell.flags.includes(flag)) return false;
    const without = (fs: CellFlag[]): string => JSON.stringify(fs.filter((f) => f !== flag));
    this.db.prepare('update cells set local_flags = ?, cloud_flags = ? where id = ?').run(without(cell.localFlags), without(cell.cloudFlags), id);
    return true;
  }

  setDoor(id: number, door: DoorState, since: number | null, opts: { expected?: boolean; alarm?: number } = {}): void {
    this.db
      .prepare('update cells set door = ?, door_since = ?, door_expected = ?, door_alarm = ? where id = ?')
      .run(door, since, opts.expected ? 1 : 0, opts.alarm ?? 0, id);
  }

  /** Marks the open door as ours (opened by an operation) without touching when it opened. */
  markDoorExpected(id: number, since: number): void {
    this.db.prepare("update cells set door = 'open', door_since = coalesce(case when door = 'open' then door_since end, ?), door_expected = 1 where id = ?").run(since, id);
  }

  addDoorAlarm(id: number, bit: number): void {
    this.db.prepare('update cells set door_alarm = door_alarm | ? where id = ?').run(bit, id);
  }
}
