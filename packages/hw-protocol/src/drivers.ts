import { BoardFamily } from './families.js';
import type { BoardDriver } from './driver.js';
import { generic24Driver } from './generic-24/driver.js';
import { kerongCu16Driver } from './kerong-cu16/driver.js';
import { kerongCu48Driver } from './kerong-cu48/driver.js';
import { winnsenDriver } from './winnsen/driver.js';

/** The driver of each board family. */
export function driverFor(family: BoardFamily): BoardDriver<unknown> {
  switch (family) {
    case BoardFamily.KerongCu48:
      return kerongCu48Driver;
    case BoardFamily.KerongCu16:
      return kerongCu16Driver;
    case BoardFamily.Winnsen:
      return winnsenDriver;
    case BoardFamily.Generic24:
      return generic24Driver;
  }
}
