import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { startReceiver, type Receiver } from '../../../helpers/receiver.js';
import { waitFor } from '../../../helpers/service.js';

/**
 * The README's walkthrough config (docs/examples/alertmanager.yml) in a real Alertmanager: only the
 * receiver's URL and token are changed, to a local receiver's. Its route must send an alert that
 * comes after the first on its own, without waiting for the first one's group.
 */
const FILE = new URL('../../../../docs/examples/alertmanager.yml', import.meta.url);
const README = new URL('../../../../README.md', import.meta.url);
const TOKEN = 'examples-token';
/** The walkthrough's promise: a later alert arrives within a minute (Alertmanager's default group_interval is 5). */
const WITHIN_A_MINUTE = 60_000;

interface Config {
  route: Record<string, unknown>;
  receivers: Array<{ name: string; webhook_configs: Array<Record<string, unknown>> }>;
}

interface Notification {
  groupKey: string;
  status: string;
  groupLabels: Record<string, string>;
  alerts: Array<{ status: string; labels: Record<string, string> }>;
}

let receiver: Receiver;
let am: TestAlertmanager;

/** The file with its receiver sending to `url` with the test's token; the route as shipped. */
function pointedAt(config: Config, url: string): string {
  expect(config.receivers).toHaveLength(1);
  const hook = config.receivers[0]!.webhook_configs[0]!;
  hook.url = url;
  hook.http_config = { authorization: { credentials: TOKEN } };
  return stringify(config);
}

beforeAll(async () => {
  receiver = await startReceiver();
  const config = parseYaml(readFileSync(FILE, 'utf8')) as Config;
  am = await startAlertmanager({ webhookUrl: receiver.url, token: TOKEN, configYaml: pointedAt(config, receiver.url) });
}, 60_000);

afterAll(async () => {
  await am?.stop();
  await receiver?.close();
});

const notifications = (): Notification[] => receiver.received.map((r) => JSON.parse(r.body) as Notification);
const alertnames = (n: Notification) => n.alerts.map((a) => `${a.labels.alertname}:${a.status}`);

describe("the walkthrough's Alertmanager config (docs/examples/alertmanager.yml)", () => {
  it('is the one the README writes', () => {
    const readme = readFileSync(README, 'utf8');
    const block = /cat > alertmanager\.yml <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(readme)?.[1];
    expect(block, 'the README writes alertmanager.yml with a heredoc').toBeDefined();
    expect(parseYaml(block!)).toEqual(parseYaml(readFileSync(FILE, 'utf8')));
  });

  it(
    'sends a second alert of another name and namespace on its own, then the first one resolved',
    async () => {
      const first = { alertname: 'WalkthroughFirst', namespace: 'shop', severity: 'critical' };
      const second = { alertname: 'WalkthroughSecond', namespace: 'billing', severity: 'warning' };
      await pushAlerts(am.url, [{ labels: first }]);
      const a = await waitFor('the first alert', async () => notifications()[0], WITHIN_A_MINUTE);
      expect(alertnames(a)).toEqual(['WalkthroughFirst:firing']);
      expect(a.groupLabels).toEqual({ alertname: 'WalkthroughFirst', namespace: 'shop' });

      // After the first group's notification: without group_by it would join that group and wait group_interval.
      await pushAlerts(am.url, [{ labels: second }]);
      const b = await waitFor('the second alert', async () => notifications()[1], WITHIN_A_MINUTE);
      expect(alertnames(b)).toEqual(['WalkthroughSecond:firing']);
      expect(b.groupLabels).toEqual({ alertname: 'WalkthroughSecond', namespace: 'billing' });
      expect(b.groupKey).not.toBe(a.groupKey);

      await pushAlerts(am.url, [{ labels: first, endsAt: new Date(Date.now() - 1_000).toISOString() }]);
      const resolved = await waitFor(
        'the first alert resolved',
        async () => notifications().find((n) => n.status === 'resolved'),
        WITHIN_A_MINUTE,
      );
      expect(resolved.groupKey).toBe(a.groupKey);
      expect(alertnames(resolved)).toEqual(['WalkthroughFirst:resolved']);
      // Each notification once, in the order things happened, each carrying the receiver's token.
      expect(notifications().map(alertnames)).toEqual([
        ['WalkthroughFirst:firing'],
        ['WalkthroughSecond:firing'],
        ['WalkthroughFirst:resolved'],
      ]);
      expect(receiver.received.map((r) => r.headers.authorization)).toEqual(Array(3).fill(`Bearer ${TOKEN}`));
    },
    3 * WITHIN_A_MINUTE,
  );
});
