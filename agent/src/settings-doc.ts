/**
 * The agent's environment variables for docs/operations.md, generated from its settings: AGENT_CONFIG
 * and LOG_LEVEL, then one variable per leaf of the config file's schema (envOverrides()). What
 * each config field means is in docs/agent.md.
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../../shared/src/redact.js';
import { acceptedValues, cell, code, defaultText, markdownTable, type JsonProperty } from '../../shared/src/settings-table.js';
import { agentConfigSchema, envOverrides } from './config.js';

interface JsonObject {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** The field's JSON Schema, and whether the file must give it (required, with its parent object present). */
function fieldAt(root: unknown, path: string[]): { p: JsonProperty; required: boolean } {
  let node = root as JsonObject | undefined;
  let required = true;
  for (const key of path) {
    required &&= node?.required?.includes(key) === true;
    node = node?.properties?.[key] as JsonObject | undefined;
  }
  return { p: (node ?? {}) as JsonProperty, required };
}

export function agentSettingsDoc(): string {
  const root = z.toJSONSchema(agentConfigSchema, { io: 'input', unrepresentable: 'any' });
  const rows = [
    [code('AGENT_CONFIG'), 'the config file, when `--config PATH` is not given', 'unset', 'a path'],
    [code('LOG_LEVEL'), 'the log level', code('info'), LOG_LEVELS.map(code).join(', ')],
    ...envOverrides().map((o) => {
      const { p, required } = fieldAt(root, o.path);
      return [code(o.env), `config field ${code(o.path.join('.'))}`, required ? 'required' : defaultText(p.default), cell(acceptedValues(p))];
    }),
  ];
  return markdownTable(['variable', 'sets', 'default', 'values'], rows);
}
