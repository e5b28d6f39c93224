// A load generator in its own process: `connections` keep-alive TCP connections send pre-built
// HTTP/1.1 POSTs, one at a time each, as fast as answers come (the way autocannon and wrk do: no
// HTTP client on the measuring side, so it takes little of the CPU the servers share with it).
// Every body is sent once. Prints {requests, seconds, rate, p50, p99, cpuUs} as JSON (cpuUs: its own CPU per
// request while sending, to show what it takes from the servers' two cores).
import net from 'node:net';
import { alertBodies } from './alert-bodies.mjs';

const spec = JSON.parse(process.argv[2]);
const url = new URL(spec.url);

const requests = alertBodies(spec).map((body) =>
  Buffer.concat([
    Buffer.from(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    ),
    body,
  ]),
);

/** Where the response in `buf` ends, its status and length, or null while incomplete (Content-Length framing only). */
function complete(buf) {
  const head = buf.indexOf('\r\n\r\n');
  if (head < 0) return null;
  const text = buf.toString('latin1', 0, head);
  const length = /\r\ncontent-length: *(\d+)/i.exec(text);
  if (!length) throw new Error(`response without Content-Length: ${text.slice(0, 200)}`);
  const end = head + 4 + Number(length[1]);
  return buf.length < end ? null : { status: Number(text.slice(9, 12)), end };
}

const latencies = new Float64Array(requests.length);
let next = 0;

function connection() {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    let buf = Buffer.alloc(0),
      current = -1,
      sentAt = 0;
    const send = () => {
      if (next >= requests.length) {
        socket.end();
        resolve();
        return;
      }
      current = next++;
      sentAt = performance.now();
      socket.write(requests[current]);
    };
    socket.on('connect', send);
    socket.on('data', (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      const res = complete(buf);
      if (!res) return;
      latencies[current] = performance.now() - sentAt;
      if (res.status !== 200) {
        socket.destroy();
        reject(new Error(`status ${res.status}`));
        return;
      }
      buf = buf.subarray(res.end);
      send();
    });
    socket.on('error', reject);
  });
}

const started = performance.now();
const sending = process.cpuUsage();
await Promise.all(Array.from({ length: spec.connections }, connection));
const seconds = (performance.now() - started) / 1000;
latencies.sort();
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
const cpu = process.cpuUsage(sending);
process.stdout.write(
  JSON.stringify({
    cpuUs: (cpu.user + cpu.system) / requests.length,
    requests: requests.length,
    seconds,
    rate: requests.length / seconds,
    p50: pct(50),
    p99: pct(99),
  }),
);
