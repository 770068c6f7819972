/**
 * The cloud's and an agent's metrics after real traffic: orders through the HTTP API, a refused
 * key, an agent linked over MQTT whose door is opened by hand (a locker event the cloud applies
 * and a door fault in the agent's health report), scraped over HTTP. The text passes
 * `promtool check metrics` where promtool is present. On SQLite and, with DATABASE_URL, PostgreSQL
 * (the gauges read on scrape are queries).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { requires } from '../helpers/requirements.js';
import { type AgentRig, type LinkWorld, openLinkWorld } from '../link/link-world.js';
import { promtoolProblems, sample, scrape } from './scrape.js';

describe.each(testEngines())('metrics of the cloud and the agent on %s', (engine) => {
  let world: LinkWorld;
  let rig: AgentRig;
  let lockerId: number;
  const cloudMetrics = (): Promise<string> => scrape(`${world.cloud.url}/metrics`);

  beforeAll(async () => {
    world = await openLinkWorld(engine, 'embedded');
    lockerId = world.takeLocker();
    rig = await world.startAgent(lockerId);
    await world.converged(rig);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('counts HTTP requests by route pattern, status and resultCode, and the parcels placed', async () => {
    await world.createOrder(lockerId, 'M-1');
    const refused = await fetch(`${world.cloud.url}/api/v4/auth/postamat/get-by-id?postamatId=${lockerId}&cellsType=1`, { headers: { 'X-Service-Api-Key': 'wrong' } });
    expect(refused.status).toBe(401);
    const text = await cloudMetrics();
    expect(sample(text, 'cloud_http_requests_total', { route: '/api/v4/auth/delivery/smartorder/create', method: 'PUT', status: '200', result_code: '0' })).toBe(1);
    expect(sample(text, 'cloud_http_requests_total', { route: '/api/v4/auth/postamat/get-by-id', method: 'GET', status: '401', result_code: '1' })).toBe(1);
    expect(sample(text, 'cloud_http_request_duration_seconds_count', { route: '/api/v4/auth/delivery/smartorder/create', method: 'PUT' })).toBe(1);
    // The raw URL (with its query) never becomes a label.
    expect(text).not.toContain(`postamatId=${lockerId}`);
    expect(sample(text, 'cloud_reservation_parcels_placed_total')).toBe(1);
    expect(sample(text, 'cloud_allocation_duration_seconds_count')).toBe(1);
    expect(sample(text, 'cloud_lockers_online')).toBe(1);
    // The link per locker: the connected one 1, every other active locker 0, each with its name.
    expect(sample(text, 'cloud_locker_online', { locker: String(lockerId) })).toBe(1);
    const links = text.split('\n').filter((l) => l.startsWith('cloud_locker_online{'));
    expect(links.length).toBeGreaterThan(1);
    for (const l of links) expect(l, 'named').toMatch(/name="[^"]+"/);
    expect(links.filter((l) => l.endsWith(' 1'))).toHaveLength(1);
    expect(sample(text, 'cloud_database_up')).toBe(1);
    expect(sample(text, 'cloud_broker_up')).toBe(0); // this world's link is a part of its own, not the cloud's standard one
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts the locker events applied, and the door fault reaches the cloud in a health report', async () => {
    rig.sim.openDoor({ bus: 'main', board: 0, lock: 1 });
    await eventually(async () => (sample(await cloudMetrics(), 'cloud_locker_events_applied_total', { type: 'door.alarm' }) ?? 0) >= 1, 'the door alarm applied in the cloud');

    const agentText = await scrape(`${rig.agent.screenUrl}/metrics`);
    expect(sample(agentText, 'agent_door_faults_total', { kind: 'opened_unexpectedly', locker: String(lockerId) })).toBe(1);
    expect(sample(agentText, 'agent_board_answer_seconds_count', { bus: 'main' })).toBeGreaterThan(0);
    expect(sample(agentText, 'agent_link_connected')).toBe(1);
    expect(sample(agentText, 'agent_outbox_depth')).toBeGreaterThanOrEqual(0);

    // The fault makes the agent report within a few seconds, without waiting for its interval.
    const served = await eventually(async () => {
      const res = await world.call('GET', `/operator/lockers/${lockerId}/health`, undefined, 'operator');
      return res.status === 200 && res.body.report ? res.body : null;
    }, 'the health report the door fault brought');
    expect(served.report.doorFaults).toBe(1);
    expect(served.report.boards.answers).toBeGreaterThan(0);
    expect(served.report.boards.p50Ms).toBeGreaterThanOrEqual(0);
    expect(served.report.version).toMatch(/^\d+\.\d+\.\d+/);
    const text = await cloudMetrics();
    expect(sample(text, 'cloud_lockers_health_reporting')).toBe(1);
    expect(sample(text, 'cloud_lockers_door_faults')).toBe(1);
    // The console's alert for the forced door, as a series Alertmanager can page on, until someone takes it.
    const forced = { locker: String(lockerId), kind: 'door.alarm', severity: 'critical' };
    expect(sample(text, 'cloud_alerts_open', { ...forced, attended: 'false' })).toBe(1);
    const alerts = await world.call('GET', `/operator/alerts?postamatId=${lockerId}`, undefined, 'operator');
    const alertId = (alerts.body.alerts as { id: number; kind: string }[]).find((a) => a.kind === 'door.alarm')!.id;
    expect((await world.call('POST', `/operator/alerts/${alertId}/acknowledge`, {}, 'operator')).status).toBe(200);
    // Scrapes within half a second share one snapshot: wait for the next.
    const taken = await eventually(async () => {
      const t = await cloudMetrics();
      return sample(t, 'cloud_alerts_open', { ...forced, attended: 'false' }) === undefined ? t : null;
    }, 'the acknowledged alert counted as attended');
    expect(sample(taken, 'cloud_alerts_open', { ...forced, attended: 'true' })).toBe(1);

    // The next report covers a new interval: the fault is not counted again.
    expect(rig.agent.health!.send()).toBe(true);
    await eventually(async () => (sample(await cloudMetrics(), 'cloud_lockers_door_faults') === 0 ? true : null), 'the next report without faults');

    const unknown = await world.call('GET', '/operator/lockers/999999999/health', undefined, 'operator');
    expect(unknown.status).toBe(400);
  });

  it.runIf(requires('promtool'))('passes promtool check metrics, the cloud’s and the agent’s', async () => {
    expect(promtoolProblems(await cloudMetrics())).toBe('');
    expect(promtoolProblems(await scrape(`${rig.agent.screenUrl}/metrics`))).toBe('');
  });
});
