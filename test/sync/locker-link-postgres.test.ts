import { describe } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { openLinkWorld } from './link-harness.js';
import { linkScenarios, twoInstanceScenario } from './link-scenarios.js';

describe.runIf(requires('postgres'))('locker link on PostgreSQL', () => {
  describe('through the embedded broker', () => {
    linkScenarios(() => openLinkWorld('postgres', 'embedded'));
  });
  describe('two instances on one database', () => {
    twoInstanceScenario(() => openLinkWorld('postgres', 'embedded'));
  });
});
