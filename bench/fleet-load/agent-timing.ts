/**
 * The agent's own link timing, read from the agent (its settings' defaults and its connect
 * timeout), so that light lockers connect, time out, back off and resend as a fleet of agents
 * left at their defaults does.
 */
import { agentConfigSchema } from '../../agent/src/config.js';
import { CONNECT_TIMEOUT_MS } from '../../agent/src/sync/mqtt-connection.js';

export interface LinkTiming {
  keepaliveSec: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  resendAfterMs: number;
  connectTimeoutMs: number;
}

export function agentLinkTiming(): LinkTiming {
  const mqtt = agentConfigSchema.shape.mqtt.unwrap().parse({ url: 'mqtt://locker.invalid', password: 'defaults' });
  return {
    keepaliveSec: mqtt.keepaliveSec,
    reconnectMinMs: mqtt.reconnectMinMs,
    reconnectMaxMs: mqtt.reconnectMaxMs,
    resendAfterMs: mqtt.resendAfterMs,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  };
}
