/**
 * Notification delivery metrics by marketplace (ids come from the fleet file, so the series are
 * bounded): attempts delivered and failed. The backlog gauges are read on scrape (fleet-state.ts).
 */
import { Counter, type Registry } from 'prom-client';

export class NotificationMetrics {
  readonly #delivered: Counter<'marketplace'>;
  readonly #failed: Counter<'marketplace'>;

  constructor(registry: Registry) {
    this.#delivered = new Counter({
      name: 'cloud_notifications_delivered_total',
      help: 'Notifications a marketplace’s receiver accepted',
      labelNames: ['marketplace'],
      registers: [registry],
    });
    this.#failed = new Counter({
      name: 'cloud_notification_attempts_failed_total',
      help: 'Delivery attempts that failed (the notification is retried)',
      labelNames: ['marketplace'],
      registers: [registry],
    });
  }

  delivered(marketplaceId: string): void {
    this.#delivered.inc({ marketplace: marketplaceId });
  }

  failed(marketplaceId: string): void {
    this.#failed.inc({ marketplace: marketplaceId });
  }
}
