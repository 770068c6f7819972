/**
 * What each operation does, its effects and its notable refusals, by operationId: the
 * `description` of the operation in the OpenAPI document (a route's own schema description wins).
 * finish.ts appends the operation's own result codes from its examples.
 */
export const OPERATION_DESCRIPTIONS: Record<string, string> = {
  getHealth: 'Liveness: answers 200 while the process serves HTTP, with the kind of database it uses. Needs no key and is not rate limited; use getReadiness to know whether the service can take work.',
  getReadiness:
    'Readiness for a load balancer: checks that the database answers (with its latency), that the link to the MQTT broker is connected (when this process runs one) and that the fleet file is loaded. Answers 503 with the same body when any check is down. Needs no key.',
  createSmartOrder:
    'Creates an order (state 0, New) of the marketplace at one of its lockers and reserves a fitting cell for each parcel from the delivery date on. Parcels that fit no cell of the locker even rotated are permanently rejected, those that fit a cell that is taken are temporarily rejected. The same request again (same externalId, same body) answers what the first got and creates nothing; an externalId already used with other data is refused with code 3. With an Idempotency-Key a different body under the same key is refused (422) and a request still in progress under it answers 409.',
  createOrder:
    'Creates an order (state 0, New) without holding cells; fitting free cells must exist at the locker now, else it is refused with 32 and, as an extension, up to five nearby lockers where the parcels fit (nearestLockers). Idempotent with an Idempotency-Key like createSmartOrder.',
  updateOrder:
    'Changes an order still in state New: parcels are matched by barcode, replaced when found and added when not, and an order created with reservation has its cells reserved again. Refused with 205 for an unknown order and 206 once it has left New. Idempotent with an Idempotency-Key.',
  cancelPosition:
    'Cancels one parcel position of an order. When every position of a New order is cancelled the order becomes Cancelled (5); of a Courier loaded order, Return initiated (6), and the parcels are to be taken back from the locker. Refused for an unknown order or parcel, or a parcel already cancelled, loaded or issued. Idempotent with an Idempotency-Key.',
  extendStorage:
    "Moves the end of storage of an order that is in the locker (state 3, Courier loaded) 72 hours later, past the locker's non-working days, and sends the marketplace an expiration-date-changes notification with the new deadline. Refused with 250 for an unknown order and 252 in any other state. Idempotent with an Idempotency-Key.",
  getOrderDetail:
    'Tells a courier where to find an order by one of its parcel barcodes: the locker, its opening hours, how to get in, and the cells holding the parcels. Wrong access codes are counted per barcode: after too many the barcode is refused with 429 (code 4) and Retry-After until the lock-out ends.',
  getCapacity:
    "Counts, per date from the delivery date on (CAPACITY_DAYS dates), the cells the marketplace may use at a locker where a parcel of the given size fits and how many of them are free. As an extension, postamatIds asks for several lockers at once. Read-only.",
  listLockers:
    "Lists the active lockers the marketplace may use with their addresses and non-working days (dayOffs); scanner filters by barcode scanner and schedule adds the working schedule and special days. Read-only.",
  getLocker: "Returns one locker with every cell the marketplace may use (cellsType 0) or only those free for loading now (cellsType 1). An unknown locker, or one the marketplace may not use, is refused with code 3.",
  listSandboxLockers:
    'Lists the sandbox lockers of the fleet with their screens and simulators, and whether this cloud process runs them (the other sandbox operations need it to). Only a sandbox marketplace key reaches the sandbox: any other key gets 404.',
  sandboxCourierLoad:
    'Plays a courier loading the order at its sandbox locker through the screen, scanner and doors of the simulated hardware, and answers once the cloud has the order Courier loaded (3); the marketplace gets the order-status, user-access-code and expiration-date-changes notifications as in production. Answers 504 when the locker did not get there within the sandbox timeout.',
  sandboxCustomerPickup:
    'Plays the customer entering the pick-up code at the sandbox locker and taking the parcels; answers once the cloud has the order Client received (2), or with the doors that failed to open. The marketplace gets the order-status notification.',
  sandboxStorageExpiry:
    "Makes the order's storage run out now and answers once the order is Awaiting return (7); the marketplace gets the order-status notification.",
  sandboxDoorJam:
    "Arms a fault in the simulated locker: the next opening of the order's cell jams. Use it to see how a failed pick-up is reported; resetSandbox repairs it.",
  startSandboxReceiverOutage:
    "Makes deliveries to the marketplace's notification receiver fail for a while (an hour by default), so that the retry policy can be seen at work; the notifications are kept and retried.",
  endSandboxReceiverOutage: "Ends the receiver outage now: what it held back is due for delivery at once.",
  sandboxCourierReturn:
    'Plays a courier collecting every parcel of the marketplace that is awaiting return at the sandbox locker; answers once the cloud has recorded them Courier picked up (4), which the marketplace is notified of.',
  sandboxDeliverNotifications:
    "Makes the marketplace's undelivered notifications due now and answers once each order's next notification had its attempt, with how many are still undelivered.",
  resetSandbox:
    "Starts the marketplace's sandbox again: ends a receiver outage, cancels the open positions of its orders, collects the parcels awaiting return, repairs the jams it armed and clears their cell flags. Answers what it cancelled, collected and repaired.",
  registerCourierRoute:
    "Registers a courier of the delivery partner (or updates the one with the same externalId) and creates a route sheet: one access code that opens every locker of the route until the end of the route date. Idempotent with an Idempotency-Key.",
  signInOperator:
    'Exchanges an operator key for a console session: sets the operator_session cookie (HttpOnly, SameSite=Strict) and answers the CSRF token that every later request of the session but GET must send as X-CSRF-Token. An unknown key is refused with 401.',
  getOperatorSession: 'Tells who is signed in and repeats the CSRF token of the session (empty when the call carries the key header instead, which needs no token). Answers 401 without a valid session or key.',
  signOutOperator: 'Ends the console session and clears its cookie; with the key header there is nothing to end and it answers the same.',
  setCellFlags:
    'Sets or clears each flag the body names (faulty, dirty, needs_inventory, blocked: true or false), with an optional reason. A flagged cell is out of allocation at once and the locker gets the flags as a cell.flags command. Audited.',
  listFlaggedCells:
    "Lists the cells of active lockers that carry a flag (one flag, or needs_inspection: faulty, dirty or needs_inventory), by locker then cell, a page at a time, each with who set its flags, why and when; the sandbox's lockers only with sandbox=true. Read-only: what the overview's cell tiles count.",
  getFleetMap:
    'Returns every active locker (up to limit, by id) with its coordinates from the fleet file, presence, open alerts and fill rate (occupied of usable cells), sandbox lockers marked, for the console\'s map. Read-only.',
  reloadFleet:
    "Reads the fleet file again and applies it, answering what changed: lockers added, updated or deactivated, how many marketplaces and partners it has, and the lockers whose configuration changed; orders are kept. A file that does not load is refused with code 3.",
  listNotifications:
    'Lists notifications to the marketplaces, newest first; by default only failing ones (undelivered past NOTIFY_FAILING_AFTER_SECONDS). Pick-up codes in bodies are masked.',
  listReceivers: "Lists each marketplace's notification receiver with its backlog, its latest attempt and whether it is failing now (from its first failed attempt).",
  redeliverNotifications:
    'Makes the chosen notifications due now, together with every undelivered notification of their orders, so that the order of notifications per order is kept. Answers how many orders and notifications became due. Audited.',
  listAlerts: 'Lists the alerts of the lockers (alarms, faults, locker facts that met a changed intent), newest first, filtered by state, locker and kind; include=history adds routine facts.',
  acknowledgeAlert: 'Marks an open alert acknowledged: someone is on it. It stays open until resolved and repeats still count on it. Audited.',
  resolveAlert: 'Resolves an alert with a reason; a repeat of the same fact afterwards opens a new alert. Audited.',
  assignAlert: 'Assigns an open or acknowledged alert to an operator, or to nobody with null. Audited.',
  addAlertNote: "Adds an operator's note to an alert; the note stays with the alert and in the audit log.",
  getOverview: 'Shows the fleet at a glance: lockers online, open alerts, cells flagged for attention and the notification backlog. Read-only.',
  listOperatorLockers: 'Lists lockers by id, a page at a time, with their presence (online, last seen), free cells per size and open alerts.',
  getOperatorLocker: "Returns one locker with its cells laid out as the front looks (column, row), each with its state, door, flags and the order it holds. Code 3 for an unknown locker.",
  listLockerOrders: "Lists the locker's orders, newest first, a page at a time; phone numbers are masked.",
  listLockerCommands: "Lists the cloud's command queue to the locker, newest first, with each command's status; applied commands are trimmed after a week.",
  listLockerAlerts: "Lists the locker's alerts, newest first: open ones, or all with include=history.",
  searchOrders: 'Finds orders whose externalId, barcode or phone number is the query or ends with it, newest first; phone numbers are masked.',
  getOrderSummary: "Returns one order as a person reads it first: its state, cells, storage deadline, pick-up code status, what the marketplace was notified of and whether it got it.",
  getOrderTimeline: "Returns one order's whole history, oldest first: API calls, state transitions, commands to the locker, locker events, alerts, notifications and their delivery attempts.",
  extendOrderStorage:
    "Extends the storage of an order in the locker (Courier loaded only, like extendStorage) by a number of days or up to a moment, pushed past the locker's non-working days; the marketplace gets an expiration-date-changes notification. Refused with 252 in any other state. Audited.",
  listAudit: 'Lists the audit log of operator actions (who, when, what, on which target, why), newest first; each filter given narrows it.',
  getLockersReport:
    "The figures of a period [from, to) (dates are days of Europe/Moscow; at most 366 days) per locker and for the network, the sandbox's lockers apart: uptime from the link's history (a locker offline or never seen before the period counts offline from its start), deliveries (orders entering 3), pick-ups (entering 2), returns collected (entering 4), failed deliveries (3 to 6: storage expired, cancelled after the load, returned early by an operator), the failed rate, dwell time from load to pick-up (median and 90th percentile, nearest rank) and the SLA (pick-ups within the storage period given at load, of the pick-ups and failed deliveries). With format=csv or Accept: text/csv the same as an RFC 4180 CSV file (UTF-8 with a BOM; a cell starting with = + - or @ is prefixed with an apostrophe). Viewers may read it.",
  getTrends:
    "The last day in 24 hourly buckets or the last week in 7 daily buckets (days of the locker's time zone, Europe/Moscow for the network) of occupancy (parcels in the cells at each bucket's end), loads, pick-ups, returns and failed deliveries, for the network (real lockers) or one locker. Viewers may read it.",
  listReleases: 'Lists the signed agent releases uploaded to the cloud, newest first, a page at a time.',
  uploadRelease:
    'Stores a signed agent release (made with `cli.ts release sign`). Refused with code 3 unless a key of RELEASE_PUBLIC_KEYS signed its manifest, every file matches its digest, the artifact is within RELEASE_MAX_BYTES and the cloud speaks the link protocol it needs; answers 201 when stored, 200 when the same release was uploaded before. Audited.',
  getRelease: 'Returns one release with its signed manifest: every file with its size and SHA-256. 404 for an unknown release.',
  listRollouts: 'Lists rollouts, newest first, with their waves and how many lockers are in each state.',
  createRollout:
    'Starts rolling a release out to a target (every locker, a list, or a city) in waves of cumulative percentages, waiting the soak time between waves; an updated agent must confirm itself healthy within the health window or goes back, and the rollout halts when more than the failure threshold of a wave failed. The first wave is offered at the next tick. 404 for an unknown release, 409 when a locker of the target is in an unfinished rollout. Audited.',
  getRollout: 'Returns one rollout with its settings, its waves and its lockers by state. 404 for an unknown rollout.',
  listRolloutLockers: "Lists a rollout's lockers in their order, a page at a time: wave, state, why, and the version each runs; filter by state or wave.",
  pauseRollout: 'Pauses a running rollout: no new offers are made and lockers that have not switched yet stop; those switching finish. 409 when the rollout is not running. Audited.',
  resumeRollout: 'Resumes a paused or halted rollout; the failures so far no longer count toward a halt. 409 in any other state. Audited.',
  abortRollout: 'Aborts a rollout for good: lockers that have not switched stop, switched ones finish their health check. 409 once finished or aborted. Audited.',
  rollbackRollout:
    "Takes back the lockers a rollout updated with a signed rollback release whose rollbackFrom names the rollout's version, as a new rollout in waves; the rollout taken back is aborted. Code 3 when the release is not such a rollback, 404 for an unknown rollout or release, 409 when its lockers are in another unfinished rollout. Audited.",
  listAgents: "Lists each active locker's agent version (as its hello, presence or update report said), a page at a time, with how many lockers run each version.",
  getLockerHealth: "Returns the latest health report of the locker's agent (boards, timings, uptime) with when it was sent and received; report is null until the first arrives.",
  listStorageEndingToday:
    "Lists the parcels waiting for pick-up (orders Courier loaded) whose storage ends today in each locker's own time zone, earliest deadline first, a page at a time, with the locker's name; phones masked. For the duty operator's calls before the parcels go back.",
};
