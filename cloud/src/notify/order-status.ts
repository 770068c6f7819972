/** The order-status notification is built in the order lifecycle (lifecycle/notifications.ts). */
export { orderStatusNotification, type ParcelPlace, type StatusEvent } from '../lifecycle/notifications.js';
