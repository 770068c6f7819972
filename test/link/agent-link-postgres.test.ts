import { describe } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { agentLinkScenarios } from './agent-link-scenarios.js';
import { openLinkWorld } from './link-world.js';

describe.runIf(requires('postgres'))('agent and cloud through the embedded broker, PostgreSQL', () => {
  agentLinkScenarios(() => openLinkWorld('postgres', 'embedded'));
});
