// A load generator in its own process (the service and Redis keep their cores): `connections`
// concurrent keep-alive connections POST the given bodies, each once, as fast as answers come.
// Prints {requests, seconds, rate, p50, p99} as JSON. Usage: node load-generator.mjs '<json spec>'.
import http from 'node:http';

const spec = JSON.parse(process.argv[2]);
const url = new URL(spec.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });

/** Alertmanager webhook bodies: `count` deliveries of `perDelivery` alerts, fingerprints from `offset`. */
function bodies({ count, perDelivery, offset }) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const alerts = [];
    for (let k = 0; k < perDelivery; k++) {
      const n = offset + i * perDelivery + k;
      alerts.push({ status: 'firing', labels: { alertname: `Bench${i}`, severity: 'warning', pod: `pod-${n}` }, annotations: { summary: 'bench' },
        startsAt: '2026-11-30T04:00:00.123456789Z', endsAt: '0001-01-01T00:00:00Z', generatorURL: '', fingerprint: n.toString(16).padStart(16, '0') });
    }
    out.push(Buffer.from(JSON.stringify({ version: '4', groupKey: `{}:{alertname="Bench${i}"}`, truncatedAlerts: 0, receiver: 'bench', status: 'firing',
      alerts, groupLabels: { alertname: `Bench${i}` }, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://am' })));
  }
  return out;
}

function post(body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const all = bodies(spec);
const latencies = new Float64Array(all.length);
let next = 0;
const started = performance.now();
await Promise.all(Array.from({ length: spec.connections }, async () => {
  while (next < all.length) {
    const i = next++;
    const t = performance.now();
    await post(all[i]);
    latencies[i] = performance.now() - t;
  }
}));
const seconds = (performance.now() - started) / 1000;
latencies.sort();
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
agent.destroy();
process.stdout.write(JSON.stringify({ requests: all.length, seconds, rate: all.length / seconds, p50: pct(50), p99: pct(99) }));
