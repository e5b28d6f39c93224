import { afterAll, beforeAll, beforeEach } from 'vitest';
import { composeComment } from '../../src/render/compose-comment.js';
import type { RcaWriter } from '../../src/registration/rca-writer.js';
import { OpsgenieApi } from '../../sources/opsgenie/api.js';
import { opsgenieWriter } from '../../sources/opsgenie/writer.js';
import { startOpsgenieDouble, type OgAlert, type OpsgenieDouble } from './doubles/opsgenie-double.js';

/** The RCA comment for alert #42, from investigation `inv`. */
export const opsgenieDoc = (rca: string, inv = 'inv-1') =>
  composeComment({ rca, issueKey: '42', investigationId: inv, allowedHosts: new Set() });

/** The OpsGenie double, the alert #42 on it, the writer and its clock, as the current test sees them. */
export interface OpsgenieWriterSuite {
  og: OpsgenieDouble;
  alert: OgAlert;
  /** The writer's clock (ms); a test moves it forward to expire a pending request. */
  now: number;
  writer: RcaWriter;
  /** Where the RCA goes: alert #42 by its id. */
  locator(): { key: string; ref: { alertId: string } };
  notes(): ReturnType<OpsgenieDouble['notes']>;
  /** The note POSTs the double received. */
  posts(): OpsgenieDouble['requests'];
  /** The polls of asynchronous request statuses the double received. */
  polls(): OpsgenieDouble['requests'];
  /** A writer as Lestrade's (25,000-character limit, clock `now`), with its own key and timeout. */
  makeWriter(key?: string, timeoutMs?: number): RcaWriter;
}

/**
 * Call inside a describe: one OpsGenie double (validating against its OpenAPI subset) for the
 * suite; before each test its alerts, requests, faults and processing polls are cleared, the clock
 * set to 1,000,000, alert #42 "Checkout 502s" added and a fresh writer made. The suite's own
 * afterEach checks the double's violations.
 */
export function opsgenieWriterSuite(): OpsgenieWriterSuite {
  const t = {
    now: 0,
    locator: () => ({ key: '42', ref: { alertId: t.alert.id } }),
    notes: () => t.og.notes(t.alert.id),
    posts: () => t.og.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notes')),
    polls: () => t.og.requests.filter((r) => r.path.startsWith('/v2/alerts/requests/')),
    makeWriter: (key = 'test-genie-key', timeoutMs = 5_000) =>
      opsgenieWriter(new OpsgenieApi(t.og.url, key, timeoutMs), t.og.url, 'Lestrade', {
        limit: 25_000,
        now: () => t.now,
      }),
  } as OpsgenieWriterSuite;

  beforeAll(async () => {
    t.og = await startOpsgenieDouble();
  });
  afterAll(async () => {
    await t.og?.close();
  });
  beforeEach(() => {
    t.og.state.alerts.clear();
    t.og.state.processingPolls = 0;
    t.og.requests.length = 0;
    t.og.faults.clear();
    t.now = 1_000_000;
    t.alert = t.og.addAlert({ message: 'Checkout 502s', tinyId: '42' });
    t.writer = t.makeWriter();
  });
  return t;
}
