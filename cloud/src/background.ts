/**
 * The cloud's standard background parts, from the process's settings: the notification
 * dispatcher, the storage clock, the retention sweep, the MQTT side (embedded broker or MQTT_URL,
 * and the locker link applying the lockers' facts), and the sandbox lockers it runs (after the
 * broker they link to). startCloud() adds them when given the whole settings; tests
 * that compose their own parts pass them in `deps.parts`.
 */
import type { CloudPart, PartDeps } from './cloud-part.js';
import { createStorageClock, type StorageClock } from './expiry/storage-clock.js';
import { createLockerEventApplier } from './locker-events/apply-locker-event.js';
import { createNotificationDispatcher } from './notify/dispatcher.js';
import { createRetentionSweep } from './retention/sweep.js';
import { OfflineWatch } from './watch/offline-watch.js';
import { loadCloudSettings, type CloudSettings } from './settings.js';
import type { Env } from './settings-from-env.js';
import type { LockerLinkHooks, LockerLinkOptions } from './sync/locker-link.js';
import { SandboxLockers } from './sandbox/sandbox-lockers.js';
import { MqttPart } from './sync/mqtt-part.js';
import { RolloutConductor } from './updates/conductor.js';
import { mqttPartSettings } from './sync/mqtt-settings.js';

export type BackgroundSettings = Pick<CloudSettings, 'notify' | 'storageClock' | 'mqtt' | 'retention' | 'sandbox' | 'watch'>;

/** The background sections of the cloud's settings (the whole settings are read and checked). */
export function loadBackgroundSettings(env: Env): BackgroundSettings {
  return loadCloudSettings(env);
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
  #sandbox: SandboxLockers | undefined;

  constructor(settings: BackgroundSettings, link: BackgroundLink = {}) {
    this.#settings = settings;
    this.#link = link;
  }

  /** The embedded broker's URL once started (undefined with MQTT_URL or MQTT_ENABLED=false). */
  get brokerUrl(): string | undefined {
    return this.#mqtt?.brokerUrl;
  }

  /** Whether the locker link is connected to its broker; undefined with MQTT_ENABLED=false. */
  brokerConnected(): boolean | undefined {
    return this.#settings.mqtt.enabled ? (this.#mqtt?.connected ?? false) : undefined;
  }

  /** The sandbox lockers this process runs, once parts() made them (SANDBOX_LOCKERS with MQTT). */
  get sandboxLockers(): SandboxLockers | undefined {
    return this.#sandbox;
  }

  /** Part factories for startCloud(). The storage clock comes before the link that confirms revocations to it. */
  parts(): ((deps: PartDeps) => CloudPart)[] {
    let clock: StorageClock | undefined;
    const factories: ((deps: PartDeps) => CloudPart)[] = [
      (deps) => createNotificationDispatcher(deps, this.#settings.notify),
      (deps) => (clock = createStorageClock(deps, this.#settings.storageClock)),
      (deps) => createRetentionSweep(deps, this.#settings.retention),
      (deps) => new OfflineWatch(deps, this.#settings.watch),
    ];
    if (this.#settings.mqtt.enabled) {
      let rollouts: RolloutConductor | undefined;
      factories.push(
        (deps) =>
          (this.#mqtt = new MqttPart(mqttPartSettings(this.#settings.mqtt), {
            updates: (rollouts = new RolloutConductor(deps, () => this.#mqtt?.link)),
            db: deps.cdb,
            signals: deps.signals,
            clock: deps.clock,
            logger: deps.logger,
            scheduler: deps.scheduler,
            metrics: deps.metrics.link,
            applyEvent: createLockerEventApplier(deps),
            onCommandsApplied: (lockerId) => clock?.onCommandsApplied(lockerId),
            hooks: this.#link.hooks,
            options: this.#link.options,
            reservationGraceMinutes: deps.config.reservationGraceMinutes,
          })),
        // After the link it sends through: rollouts move on once the broker is there.
        () => rollouts!,
      );
      if (this.#settings.sandbox.lockers) {
        factories.push((deps) => (this.#sandbox = new SandboxLockers(deps, { settings: this.#settings.sandbox, brokerUrl: () => this.#mqtt?.brokerUrl })));
      }
    }
    return factories;
  }
}
