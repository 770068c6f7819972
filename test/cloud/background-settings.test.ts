import { describe, expect, it } from 'vitest';
import { loadBackgroundSettings } from '../../cloud/src/background.js';
import { mqttPartSettings } from '../../cloud/src/sync/mqtt-settings.js';

describe('background settings from the environment', () => {
  it('defaults to the embedded broker on 1883 with a random cloud password per process', () => {
    const s = loadBackgroundSettings({});
    expect(s.mqtt).toMatchObject({ enabled: true, brokerHost: '127.0.0.1', brokerPort: 1883, username: 'cloud' });
    expect(s.mqtt.url).toBeUndefined();
    const a = mqttPartSettings(s.mqtt);
    const b = mqttPartSettings(s.mqtt);
    expect(a.password).not.toBe(b.password);
    expect(a.brokerPortSetting).toBe('MQTT_BROKER_PORT');
    expect(s.notify.retrySeconds).toBe(300);
  });

  it('reads MQTT_URL, MQTT_ENABLED and the broker port', () => {
    const s = loadBackgroundSettings({ MQTT_URL: 'mqtt://broker:1883', MQTT_ENABLED: 'false', MQTT_BROKER_PORT: '0', MQTT_PASSWORD: 'pw' });
    expect(s.mqtt).toMatchObject({ enabled: false, url: 'mqtt://broker:1883', brokerPort: 0 });
    expect(mqttPartSettings(s.mqtt).password).toBe('pw');
  });

  it('refuses a bad value naming its variable', () => {
    expect(() => loadBackgroundSettings({ MQTT_BROKER_PORT: '70000' })).toThrow(/MQTT_BROKER_PORT/);
    expect(() => loadBackgroundSettings({ MQTT_URL: 'http://x' })).toThrow(/MQTT_URL/);
    expect(() => loadBackgroundSettings({ NOTIFY_RETRY_SECONDS: '0' })).toThrow(/NOTIFY_RETRY_SECONDS/);
  });
});
