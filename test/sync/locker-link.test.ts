import { describe } from 'vitest';
import { openLinkWorld } from './link-harness.js';
import { linkScenarios, twoInstanceScenario } from './link-scenarios.js';

describe('locker link on SQLite through the embedded broker', () => {
  linkScenarios(() => openLinkWorld('sqlite', 'embedded'));
});

describe('two locker link instances on one SQLite file', () => {
  twoInstanceScenario(() => openLinkWorld('sqlite', 'embedded'));
});
