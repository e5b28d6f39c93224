import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  amDelivery,
  finalWriteBack,
  postAlertmanager,
  serveWithDestinations,
} from '../../../helpers/destinations-harness.js';
import {
  startPagerDutyEventsDouble,
  type PagerDutyEventsDouble,
} from '../../../helpers/doubles/pagerduty-events-double.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, waitFor } from '../../../helpers/service.js';

/** The PagerDuty Events destination in the running service: on with PAGERDUTY_ROUTING_KEY, routed like the others. */
const h = serviceHarness();
const KEY = 'R0UT1NGKEY0000000000000000000009';
let pd: PagerDutyEventsDouble;

beforeEach(async () => {
  pd = await startPagerDutyEventsDouble([KEY]);
});
afterEach(async () => {
  expect(pd.violations).toEqual([]);
  await pd.close();
});

const env = () => ({ PAGERDUTY_ROUTING_KEY: KEY, PAGERDUTY_EVENTS_URL: pd.enqueueUrl });

describe('PagerDuty Events in the service', () => {
  it('with investigations: true, an alert opens an incident and its resolve resolves it, each once', async () => {
    const svc = await serveWithDestinations(h, env(), 'destinations: { pagerduty_events: { investigations: true } }\n');
    expect((await getJson(`${svc.base}/readyz`)).body.destinations.pagerduty_events).toBe('ok');
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 7 }]));
    const id = out.queued[0] as string;
    const wb = await finalWriteBack(svc, id, 'pagerduty_events');
    expect(wb).toMatchObject({ status: 'written', target: 'pagerduty_events' });
    expect(wb.commentId).toMatch(/^trigger:lestrade-issue:alertmanager:/);
    const dedupKey = (wb.commentId as string).slice('trigger:'.length);
    expect(pd.alerts.get(dedupKey)).toMatchObject({ status: 'triggered', incidents: 1 });
    expect(pd.requests[0]!.body).toMatchObject({
      client_url: `https://lestrade.example/api/investigations/${id}`,
      payload: { severity: 'critical', source: 'prod', class: 'investigation' },
    });

    await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 7, status: 'resolved' }]));
    await waitFor('the resolve', async () => pd.alerts.get(dedupKey)?.status === 'resolved');
    expect(pd.requests.map((r) => (r.body as { event_action: string }).event_action)).toEqual(['trigger', 'resolve']);
  });

  it('without it, alerts page nobody; without a routing key the destination is off, saying why', async () => {
    const svc = await serveWithDestinations(h, env());
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 8 }]));
    await waitFor('the investigation', async () => {
      const inv = (await getJson(`${svc.base}/api/investigations/${out.queued[0]}`)).body;
      return inv.status === 'completed' && inv;
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(pd.requests).toEqual([]);
    await svc.close();
    await h.llm?.close();
    h.svc = undefined;
    const off = await serveWithDestinations(h, {});
    expect((await getJson(`${off.base}/readyz`)).body.destinations.pagerduty_events).toBe(
      'off: no routing key (PAGERDUTY_ROUTING_KEY or destinations.pagerduty_events.routingKey)',
    );
  });
});
