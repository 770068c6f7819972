/**
 * The deployment files agree with the code: the example agent config passes the agent's own
 * schema (as the systemd unit hands it over, through AGENT_CONFIG), the compose file only sets
 * settings the cloud reads and mounts files that exist, and the Dockerfiles copy and run paths
 * that exist. (No Docker engine is needed: nothing is built or started.)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig, parseAgentConfig } from '../../agent/src/config.js';
import { CONFIG_ENV } from '../../cloud/src/config.js';
import { STORAGE_CLOCK_ENV } from '../../cloud/src/expiry/settings.js';
import { NOTIFY_ENV } from '../../cloud/src/notify/settings.js';
import { MQTT_ENV } from '../../cloud/src/sync/mqtt-settings.js';
import { AgentVitals } from '../../agent/src/vitals/vitals.js';
import { createCloudMetrics } from '../../cloud/src/metrics/cloud-metrics.js';
import { requires } from '../helpers/requirements.js';
import { shippedAgentArgs, shippedAgentCommand, shippedLauncherArgs } from '../../scripts/shipped-agent-command.js';

const deploy = (...p: string[]): string => join('deploy', ...p);
const AGENT_EXAMPLE = deploy('agent', 'agent.example.json');

describe('deployment files', () => {
  it('the example agent config passes the agent schema, read through AGENT_CONFIG as the systemd unit sets it', () => {
    const unit = readFileSync(deploy('systemd', 'locker-agent.service'), 'utf8');
    expect(unit).toMatch(/^Environment=AGENT_CONFIG=\/etc\/locker-agent\/agent\.json$/m);
    const config = loadAgentConfig([], { AGENT_CONFIG: AGENT_EXAMPLE });
    expect(config.lockerId).toBe('101');
    expect(config.buses[0]).toMatchObject({ name: 'main', family: 'kerong-cu16', boards: [{ address: 0, polarity: 'normal' }] });
    expect(config.mqtt?.url).toMatch(/^mqtts:\/\//);
    // The unit's state directory is where the store is.
    expect(unit).toMatch(/^StateDirectory=locker-agent$/m);
    expect(config.dbPath).toBe('/var/lib/locker-agent/agent.sqlite');
    // A password kept out of the file (the unit's EnvironmentFile) overrides it.
    expect(parseAgentConfig(JSON.parse(readFileSync(AGENT_EXAMPLE, 'utf8')), { AGENT_MQTT_PASSWORD: 'from-env' }).mqtt?.password).toBe('from-env');
  });

  it("the systemd unit and the Dockerfiles start entry points that exist, as one node process", () => {
    // The agent runs built (npm run build:agent writes dist/agent/main.js from agent/src/main.ts),
    // through the releases directory's `current` link that the launcher (dist/agent/launcher.js) points.
    const unit = readFileSync(deploy('systemd', 'locker-agent.service'), 'utf8');
    const shipped = shippedAgentArgs('.');
    expect(/^ExecStart=\/usr\/bin\/node .*$/m.test(unit)).toBe(true);
    expect(shipped.at(-1)).toBe('releases/current/main.js');
    expect(shipped.slice(0, -1).every((arg) => arg.startsWith('--'))).toBe(true);
    expect(shippedLauncherArgs('.')).toEqual(['dist/agent/launcher.js', 'pick']);
    // The releases directory of the example config is the one the unit starts from and may write.
    const root = /^WorkingDirectory=(.+)$/m.exec(unit)?.[1];
    const updatesDir = loadAgentConfig([], { AGENT_CONFIG: AGENT_EXAMPLE }).updates?.dir;
    expect(updatesDir).toBe(`${root}/releases`);
    expect(unit).toMatch(new RegExp(`^ReadWritePaths=${updatesDir}$`, 'm'));
    expect(unit).toMatch(/^OnFailure=locker-agent-rollback\.service$/m);
    for (const file of ['locker-agent-rollback.service', 'locker-agent-watchdog.service']) {
      const text = readFileSync(deploy('systemd', file), 'utf8');
      expect(text, file).toMatch(/^(ExecStart|ExecCondition)=\/usr\/bin\/node dist\/agent\/launcher\.js (rollback|revert-if-overdue)$/m);
      expect(text, file).toMatch(new RegExp(`^ReadWritePaths=${updatesDir}$`, 'm'));
    }
    expect(readFileSync('scripts/build-agent.ts', 'utf8')).toContain("outfile: join(out, 'launcher.js')");
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['build:agent']).toBe('tsx scripts/build-agent.ts');
    const build = readFileSync('scripts/build-agent.ts', 'utf8');
    expect(build).toContain("join(root, 'dist', 'agent')");
    expect(build).toContain("main: join(root, 'agent/src/main.ts')");
    for (const [file, cmd, entry] of [
      ['cloud.Dockerfile', '["node", "--import", "tsx", "cloud/src/main.ts"]', 'cloud/src/main.ts'],
      // A container runs the factory bundle as it is (containers are updated by their image).
      ['agent.Dockerfile', JSON.stringify(['node', ...shippedAgentCommand('.', 'dist/agent/main.js')]).replaceAll(',', ', '), 'agent/src/main.ts'],
    ] as const) {
      const text = readFileSync(deploy('docker', file), 'utf8');
      expect(text).toContain(`CMD ${cmd}`);
      expect(existsSync(entry)).toBe(true);
      expect(text).toMatch(/^FROM node:20-\S+ AS deps$/m);
      expect(text).toMatch(/^USER node$/m);
      const copied = [...text.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)].flatMap((m) => m[1]!.split(' '));
      expect(copied.length).toBeGreaterThan(0);
      for (const src of copied) expect(existsSync(src), `${file} copies ${src}`).toBe(true);
    }
  });

  it('the compose file sets only settings the cloud reads and mounts files that exist', () => {
    const compose = parse(readFileSync(deploy('docker-compose.yml'), 'utf8')) as {
      services: Record<string, { environment?: Record<string, string>; volumes?: string[]; build?: { context: string; dockerfile: string } }>;
    };
    const known = new Set<string>([...Object.values(CONFIG_ENV), ...Object.values(MQTT_ENV), ...Object.values(NOTIFY_ENV), ...Object.values(STORAGE_CLOCK_ENV)]);
    const cloud = compose.services.cloud!;
    expect(Object.keys(cloud.environment ?? {}).filter((name) => !known.has(name))).toEqual([]);
    expect(cloud.environment).toMatchObject({ MQTT_URL: 'mqtt://mosquitto:1883', FLEET_FILE: '/etc/locker-cloud/fleet.json' });
    expect(cloud.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(existsSync(join('deploy', cloud.build!.context, cloud.build!.dockerfile))).toBe(true);

    const mosquitto = compose.services.mosquitto!;
    const sources = (mosquitto.volumes ?? []).map((v) => v.split(':')[0]!).filter((s) => s.startsWith('./mosquitto/'));
    expect(sources).toEqual(['./mosquitto/mosquitto.conf', './mosquitto/acl']);
    for (const s of sources) expect(existsSync(join('deploy', s))).toBe(true);
    // The cloud's broker user is one the ACL grants the cloud's topics to.
    expect(readFileSync(deploy('mosquitto', 'acl'), 'utf8')).toMatch(new RegExp(`^user ${cloud.environment!.MQTT_USERNAME}$`, 'm'));
  });

  it('the monitoring compose file mounts files that exist, and Prometheus and Grafana find theirs', () => {
    const compose = parse(readFileSync(deploy('monitoring', 'docker-compose.yml'), 'utf8')) as { services: Record<string, { volumes?: string[] }> };
    const mounts = Object.values(compose.services).flatMap((s) => s.volumes ?? []).filter((v) => v.startsWith('./'));
    expect(mounts.length).toBeGreaterThanOrEqual(3);
    // Relative to deploy/, the project directory of the compose file it overlays.
    for (const m of mounts) expect(existsSync(join('deploy', m.split(':')[0]!)), m).toBe(true);
    const provisioning = parse(readFileSync(deploy('grafana', 'provisioning', 'dashboards', 'lockers.yml'), 'utf8')) as { providers: { options: { path: string } }[] };
    expect(mounts).toContain(`./grafana/dashboards:${provisioning.providers[0]!.options.path}:ro`);
  });

  it('the alerts and the dashboard name only metrics the cloud and the agent have', () => {
    const known = new Set(
      [createCloudMetrics().registry, new AgentVitals('check', () => 0).registry].flatMap((r) =>
        r.getMetricsAsArray().flatMap((m) => {
          const name = (m as unknown as { name: string }).name;
          return [name, `${name}_bucket`, `${name}_count`, `${name}_sum`];
        }),
      ),
    );
    const dashboards = readdirSync(deploy('grafana', 'dashboards')).map((f) => readFileSync(deploy('grafana', 'dashboards', f), 'utf8'));
    for (const d of dashboards) JSON.parse(d);
    const named = [readFileSync(deploy('prometheus', 'alerts.yml'), 'utf8'), ...dashboards].flatMap((text) => [...text.matchAll(/\b((?:cloud|agent|process|nodejs)_[a-z_]+)/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(20);
    expect([...new Set(named)].filter((n) => !known.has(n))).toEqual([]);
  });

  it.runIf(requires('systemd-analyze'))('the systemd units pass systemd-analyze verify', () => {
    const units = readdirSync(deploy('systemd')).filter((f) => /\.(service|timer)$/.test(f));
    expect(units.length).toBe(4);
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', ...units.map((u) => `./${u}`)], { cwd: deploy('systemd'), encoding: 'utf8' });
    expect(r.status, `systemd-analyze verify: ${r.stdout}${r.stderr}`).toBe(0);
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
  });

  it.runIf(requires('promtool'))('the Prometheus config and its rules pass promtool', () => {
    for (const args of [
      ['check', 'config', deploy('prometheus', 'prometheus.yml')],
      ['check', 'rules', deploy('prometheus', 'alerts.yml')],
      // The rules' unit tests: the offline alert names the locker, a failing receiver pages.
      ['test', 'rules', deploy('prometheus', 'alerts.test.yml')],
    ]) {
      const r = spawnSync('promtool', args, { encoding: 'utf8' });
      expect(r.status, `promtool ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it.runIf(requires('amtool'))('the Alertmanager config passes amtool, pages on critical alerts and sends the rest to the duty chat', () => {
    const config = deploy('alertmanager', 'alertmanager.yml');
    const check = spawnSync('amtool', ['check-config', config], { encoding: 'utf8' });
    expect(check.status, `amtool check-config: ${check.stdout}${check.stderr}`).toBe(0);
    const receivers = (...labels: string[]): string => {
      const r = spawnSync('amtool', ['config', 'routes', 'test', `--config.file=${config}`, ...labels], { encoding: 'utf8' });
      expect(r.status, `amtool config routes test ${labels.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout.trim();
    };
    expect(receivers('severity=critical', 'alertname=DoorForced', 'locker=102')).toBe('duty-pager,duty-chat');
    expect(receivers('severity=warning', 'alertname=LockerOfflineInCloud', 'locker=102')).toBe('duty-chat');
    // Prometheus sends to the Alertmanager the monitoring compose file runs.
    expect(readFileSync(deploy('prometheus', 'prometheus.yml'), 'utf8')).toContain('alertmanager:9093');
  });
});
