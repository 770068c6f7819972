import { describe } from 'vitest';
import { agentLinkScenarios } from './agent-link-scenarios.js';
import { openLinkWorld } from './link-world.js';

describe('agent and cloud through the embedded broker, SQLite', () => {
  agentLinkScenarios(() => openLinkWorld('sqlite', 'embedded'));
});
