// The Alertmanager webhook bodies every intake benchmark sends: `count` deliveries of `perDelivery`
// firing alerts, fingerprints numbered from `offset` (so each case's alerts are new to Redis).
// Shared by the load generator and the Redis-alone floor, so both measure the same alerts.
export function alertBodies({ count, perDelivery, offset }) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const alerts = [];
    for (let k = 0; k < perDelivery; k++) {
      const n = offset + i * perDelivery + k;
      alerts.push({
        status: 'firing',
        labels: { alertname: `Bench${i}`, severity: 'warning', pod: `pod-${n}` },
        annotations: { summary: 'bench' },
        startsAt: '2026-11-30T04:00:00.123456789Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: '',
        fingerprint: n.toString(16).padStart(16, '0'),
      });
    }
    out.push(
      Buffer.from(
        JSON.stringify({
          version: '4',
          groupKey: `{}:{alertname="Bench${i}"}`,
          truncatedAlerts: 0,
          receiver: 'bench',
          status: 'firing',
          alerts,
          groupLabels: { alertname: `Bench${i}` },
          commonLabels: {},
          commonAnnotations: {},
          externalURL: 'http://am',
        }),
      ),
    );
  }
  return out;
}
