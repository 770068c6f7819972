/** Examples of the courier route operation of /api/v1 (partner fast-courier of the example fleet). */
import { ResultCode } from '../../../../../shared/src/enums.js';
import type { OperationExamples } from './types.js';

export const courierExamples: Record<string, OperationExamples> = {
  registerCourierRoute: {
    success: 'The courier is registered (or updated) and has one access code for every locker of the route, valid until the end of the route date',
    codes: [ResultCode.PermissionProfileNotSet, ResultCode.CourierAlreadyExists, ResultCode.CourierExtIdEmpty],
    requests: {
      route: {
        summary: 'A courier with a route to lockers 101 and 102',
        description: 'Locker ids may be numbers or digit strings.',
        body: {
          courier: { externalId: 'CR-77', email: 'petrov@fast-courier.example', inn: '7701234567', phone: '+79035550077' },
          route: { carNumber: 'А123ВС77', date: '2030-03-04', externalId: 'RT-2001', postamatIds: ['101', 102] },
        },
        status: 200,
      },
      emptyCourierId: {
        summary: "A courier without externalId",
        body: {
          courier: { externalId: '', email: 'sidorov@fast-courier.example', phone: '+79035550078' },
          route: { carNumber: 'А123ВС77', date: '2030-03-04', externalId: 'RT-2002', postamatIds: [101] },
        },
        status: 400,
        answer: 'code604',
      },
    },
    answers: {
      route: { summary: 'The access code', value: { mosRegistryDescr: "Not checked: no city registry is connected", mosRegistryStatus: 0, postamatAccessCode: "40718263" } },
    },
  },
};
