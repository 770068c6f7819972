/**
 * The cloud's standard background parts, from the environment: the notification dispatcher, the
 * storage clock, and the MQTT side (embedded broker or MQTT_URL, and the locker link applying
 * the lockers' facts). `main.ts` and the demo pass `parts()` to startCloud(); tests compose the
 * parts they need.
 */
import type { CloudPart } from './cloud.js';
import { createStorageClock, type StorageClock } from './expiry/storage-clock.js';
import { loadStorageClockSettings, type StorageClockSettings } from './expiry/settings.js';
import { createLockerEventApplier } from './locker-events/apply-locker-event.js';
import { createNotificationDispatcher } from './notify/dispatcher.js';
import { loadNotifySettings, type NotifySettings } from './notify/settings.js';
import type { ServiceDeps } from './services.js';
import type { LockerLinkHooks, LockerLinkOptions } from './sync/locker-link.js';
import { MqttPart } from './sync/mqtt-part.js';
import { loadMqttSettings, mqttPartSettings, type CloudMqttSettings } from './sync/mqtt-settings.js';

export interface BackgroundSettings {
  notify: NotifySettings;
  storageClock: StorageClockSettings;
  mqtt: CloudMqttSettings;
}

export function loadBackgroundSettings(env: Record<string, string | undefined> = process.env): BackgroundSettings {
  return { notify: loadNotifySettings(env), storageClock: loadStorageClockSettings(env), mqtt: loadMqttSettings(env) };
}

/** What a caller adds to the locker link: observation and fault-injection hooks, other timings. */
export interface BackgroundLink {
  hooks?: LockerLinkHooks;
  options?: Partial<LockerLinkOptions>;
}

export class CloudBackground {
  readonly #settings: BackgroundSettings;
  readonly #link: BackgroundLink;
  #mqtt: MqttPart | undefined;

  constructor(settings: BackgroundSettings, link: BackgroundLink = {}) {
    this.#settings = settings;
    this.#link = link;
  }

  /** The embedded broker's URL once started (undefined with MQTT_URL or MQTT_ENABLED=false). */
  get brokerUrl(): string | undefined {
    return this.#mqtt?.brokerUrl;
  }

  /** Part factories for startCloud(). The storage clock comes before the link that confirms revocations to it. */
  parts(): ((deps: ServiceDeps) => CloudPart)[] {
    let clock: StorageClock | undefined;
    const factories: ((deps: ServiceDeps) => CloudPart)[] = [
      (deps) => createNotificationDispatcher(deps, this.#settings.notify),
      (deps) => (clock = createStorageClock(deps, this.#settings.storageClock)),
    ];
    if (this.#settings.mqtt.enabled) {
      factories.push(
        (deps) =>
          (this.#mqtt = new MqttPart(mqttPartSettings(this.#settings.mqtt), {
            db: deps.cdb,
            signals: deps.signals,
            clock: deps.clock,
            logger: deps.logger,
            applyEvent: createLockerEventApplier(deps),
            onCommandsApplied: (lockerId) => clock?.onCommandsApplied(lockerId),
            hooks: this.#link.hooks,
            options: this.#link.options,
            reservationGraceMinutes: deps.config.reservationGraceMinutes,
          })),
      );
    }
    return factories;
  }
}
