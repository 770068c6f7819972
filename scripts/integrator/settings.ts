/**
 * The walk-through's own settings, from the environment: the ports of the cloud it starts, of that
 * cloud's embedded MQTT broker and of its notification receiver (0, the default: a free one), and
 * the longest wait for any one event. A bad value stops the start naming its variable.
 */
export interface WalkthroughSettings {
  cloudPort: number;
  brokerPort: number;
  receiverPort: number;
  /** Longest wait for one event (the cloud ready, a sandbox operation, a notification), s. */
  timeoutSeconds: number;
}

export const WALKTHROUGH_ENV = {
  cloudPort: 'WALKTHROUGH_CLOUD_PORT',
  brokerPort: 'WALKTHROUGH_BROKER_PORT',
  receiverPort: 'WALKTHROUGH_RECEIVER_PORT',
  timeoutSeconds: 'WALKTHROUGH_TIMEOUT_SECONDS',
} as const satisfies Record<keyof WalkthroughSettings, string>;

const BOUNDS: Record<keyof WalkthroughSettings, { min: number; max: number; fallback: number }> = {
  cloudPort: { min: 0, max: 65_535, fallback: 0 },
  brokerPort: { min: 0, max: 65_535, fallback: 0 },
  receiverPort: { min: 0, max: 65_535, fallback: 0 },
  // The sandbox's own limit (SANDBOX_TIMEOUT_SECONDS) goes up to 600 s.
  timeoutSeconds: { min: 10, max: 600, fallback: 180 },
};

export function readWalkthroughSettings(env: Record<string, string | undefined>): WalkthroughSettings {
  const problems: string[] = [];
  const read = (key: keyof WalkthroughSettings): number => {
    const { min, max, fallback } = BOUNDS[key];
    const raw = env[WALKTHROUGH_ENV[key]];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^\d{1,6}$/.test(raw) || value < min || value > max) problems.push(`${WALKTHROUGH_ENV[key]}: an integer ${min} to ${max} expected`);
    return value;
  };
  const settings = { cloudPort: read('cloudPort'), brokerPort: read('brokerPort'), receiverPort: read('receiverPort'), timeoutSeconds: read('timeoutSeconds') };
  if (problems.length > 0) throw new Error(`invalid walk-through settings: ${problems.join('; ')}`);
  return settings;
}
