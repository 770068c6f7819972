import { describe } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { openLinkWorld } from './link-harness.js';
import { linkScenarios, twoInstanceScenario } from './link-scenarios.js';

describe.runIf(requires('mqtt-url'))("locker link through the machine's Mosquitto (MQTT_URL)", () => {
  describe('plain subscriptions', () => {
    linkScenarios(() => openLinkWorld('sqlite', 'external'));
  });
  describe('two instances with a shared subscription', () => {
    twoInstanceScenario(() => openLinkWorld('sqlite', 'external'), 'lockerlink');
  });
});
