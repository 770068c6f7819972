export { AgentLink, type AgentLinkDeps, type AgentLinkSettings } from './agent-link.js';
export type { LinkHooks } from './hooks.js';
export { systemTimers, type Timers } from './timers.js';
