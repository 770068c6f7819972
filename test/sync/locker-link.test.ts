import { describe } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { openLinkWorld } from './link-harness.js';
import { linkScenarios, twoInstanceScenario } from './link-scenarios.js';

describe('locker link on SQLite through the embedded broker', () => {
  linkScenarios(() => openLinkWorld('sqlite', 'embedded'));
});

describe('two locker link instances on one SQLite file', () => {
  twoInstanceScenario(() => openLinkWorld('sqlite', 'embedded'));
});

describe.runIf(requires('postgres'))('locker link on PostgreSQL', () => {
  describe('through the embedded broker', () => {
    linkScenarios(() => openLinkWorld('postgres', 'embedded'));
  });
  describe('two instances on one database', () => {
    twoInstanceScenario(() => openLinkWorld('postgres', 'embedded'));
  });
});

describe.runIf(requires('mqtt-url'))("locker link through the machine's Mosquitto (MQTT_URL)", () => {
  describe('plain subscriptions', () => {
    linkScenarios(() => openLinkWorld('sqlite', 'external'));
  });
  describe('two instances with a shared subscription', () => {
    twoInstanceScenario(() => openLinkWorld('sqlite', 'external'), 'lockerlink');
  });
});
