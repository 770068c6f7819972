/**
 * The examples of every operation, by operationId, in the order they run against the example
 * fleet (test/openapi/examples.test.ts): a route added without examples fails that test. A new
 * operation gets its entry in the file of its group.
 */
import { consoleExamples } from './console.js';
import { courierExamples } from './couriers.js';
import { healthExamples } from './health.js';
import { operatorExamples } from './operator.js';
import { orderExamples } from './orders.js';
import { postamatExamples } from './postamats.js';
import { sandboxExamples } from './sandbox.js';
import { serviceCodeExamples } from './service-codes.js';
import type { OperationExamples } from './types.js';
import { updateExamples } from './updates.js';

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  ...healthExamples,
  ...postamatExamples,
  ...courierExamples,
  ...orderExamples,
  ...operatorExamples,
  ...consoleExamples,
  ...sandboxExamples,
  ...updateExamples,
  ...serviceCodeExamples,
};
