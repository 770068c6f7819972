/** What the order lifecycle needs from the service's dependencies. */
import type { LifecycleDeps } from '../lifecycle/apply.js';
import type { ServiceDeps } from '../services.js';

export function lifecycleDeps(deps: ServiceDeps): LifecycleDeps {
  return { random: deps.random, pickupCodeLength: deps.config.pickupCodeLength, ...(deps.request ? { requestId: deps.request.requestId } : {}) };
}
