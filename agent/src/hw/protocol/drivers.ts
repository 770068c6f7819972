import { BoardFamily } from '../../../../shared/src/enums.js';
import type { BoardDriver } from './driver.js';
import { kerongCu16Driver } from './kerong-cu16/driver.js';
import { kerongCu48Driver } from './kerong-cu48/driver.js';

/** The driver of each board family. */
export function driverFor(family: BoardFamily): BoardDriver<unknown> {
  switch (family) {
    case BoardFamily.KerongCu48:
      return kerongCu48Driver;
    case BoardFamily.KerongCu16:
      return kerongCu16Driver;
    case BoardFamily.Winnsen:
    case BoardFamily.Generic24:
      throw new Error(`no driver for ${family} yet`);
  }
}
