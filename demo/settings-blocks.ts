/** The generated blocks of docs/operations.md (settings and metrics), by marker name, and what each is generated from. */
import { agentSettingsDoc } from '../agent/src/settings-doc.js';
import { cloudSettingsDoc, sectionTable } from '../cloud/src/settings-doc.js';
import { AgentVitals } from '../agent/src/vitals/vitals.js';
import { createCloudMetrics } from '../cloud/src/metrics/cloud-metrics.js';
import { metricsTable } from '../cloud/src/metrics/metrics-doc.js';
import { DEMO_ENV, demoSettingsSchema } from './config.js';

export const SETTINGS_BLOCKS: Record<string, () => string> = {
  'demo-settings': () => sectionTable({ schema: demoSettingsSchema, env: DEMO_ENV }),
  'cloud-settings': cloudSettingsDoc,
  'agent-settings': agentSettingsDoc,
  'cloud-metrics': () => metricsTable(createCloudMetrics().registry, 'cloud_'),
  'agent-metrics': () => metricsTable(new AgentVitals('doc', () => 0).registry, 'agent_'),
};
