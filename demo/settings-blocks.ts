/** The generated blocks of docs/operations.md, by marker name, and what each is generated from. */
import { agentSettingsDoc } from '../agent/src/settings-doc.js';
import { cloudSettingsDoc, sectionTable } from '../cloud/src/settings-doc.js';
import { DEMO_ENV, demoSettingsSchema } from './config.js';

export const SETTINGS_BLOCKS: Record<string, () => string> = {
  'demo-settings': () => sectionTable({ schema: demoSettingsSchema, env: DEMO_ENV }),
  'cloud-settings': cloudSettingsDoc,
  'agent-settings': agentSettingsDoc,
};
