import { describe } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { agentLinkScenarios } from './agent-link-scenarios.js';
import { openLinkWorld } from './link-world.js';

describe.runIf(requires('mqtt-url'))("agent and cloud through the machine's Mosquitto (MQTT_URL), SQLite", () => {
  agentLinkScenarios(() => openLinkWorld('sqlite', 'external'));
});
