import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isAllowed, parseAuthority, spell, type Destination } from './destinations.js';

export interface EgressRules {
  /** The host:port pairs this proxy connects to; nothing else. */
  destinations: Destination[];
  /** "read-only": plain HTTP requests must be GET or HEAD. "any": a human approved the line. */
  methods: 'read-only' | 'any';
  /** Where a refused destination is added (named in the refusal): "toolsets.bash.curlHosts". */
  configKey: string;
}

export interface EgressProxy {
  /** The Unix socket it listens on (bound into the sandbox; socat bridges it onto the sandbox's loopback). */
  socketPath: string;
  close(): Promise<void>;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' };

/**
 * The sandbox's only way out (issue 30): an HTTP proxy on a Unix socket that connects to the
 * configured host:port pairs and nothing else, whatever the command line said. Plain HTTP comes as
 * absolute-form requests, which it forwards itself (GET and HEAD only, unless the line was
 * approved); HTTPS comes as CONNECT host:port, which it tunnels. The destination is matched by the
 * name the client asked for, as configured: an IP literal only when that literal is listed, never a
 * name's resolved address; the proxy resolves names itself (the sandbox has no DNS of its own).
 */
export async function startEgressProxy(socketPath: string, rules: EgressRules): Promise<EgressProxy> {
  const open = new Set<Duplex>();
  const track = (s: Duplex) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  };
  const server = createServer((req, res) => forward(req, res, rules, track));
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => tunnel(req, client, head, rules, track));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function refusal(where: string, rules: EgressRules): string {
  return `lestrade egress proxy: ${where} is not an allowed destination: add "${where}" to ${rules.configKey} to reach it\n`;
}

/** Plain HTTP: "GET http://host:port/path HTTP/1.1", forwarded to host:port when allowed. */
function forward(req: IncomingMessage, res: ServerResponse, rules: EgressRules, track: (s: Duplex) => void): void {
  const m = /^http:\/\/([^/?#]*)([/?#].*)?$/.exec(req.url ?? '');
  const target = m ? parseAuthority(m[1]!) : null;
  if (!m || !target)
    return answer(res, 400, 'lestrade egress proxy: only http://host[:port]/path requests and CONNECT\n');
  const port = target.port ?? 80;
  if (!isAllowed(rules.destinations, target.host, port))
    return answer(res, 403, refusal(spell(target.host, port), rules));
  const method = req.method ?? 'GET';
  if (rules.methods === 'read-only' && !READ_METHODS.has(method))
    return answer(res, 405, `lestrade egress proxy: ${method} refused: only GET and HEAD without a human's approval\n`);
  const headers = { ...req.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const path = m[2] === undefined || !m[2].startsWith('/') ? `/${m[2] ?? ''}` : m[2];
  const upstream = request({ host: unbracket(target.host), port, method, path, headers }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.rawHeaders);
    up.pipe(res);
  });
  upstream.on('socket', track);
  upstream.on('error', (e) => answer(res, 502, `lestrade egress proxy: ${spell(target.host, port)}: ${e.message}\n`));
  req.pipe(upstream);
}

/** HTTPS: "CONNECT host:port", tunnelled when allowed; the method inside is out of sight (the policy's part). */
function tunnel(req: IncomingMessage, client: Duplex, head: Buffer, rules: EgressRules, track: (s: Duplex) => void) {
  track(client);
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  if (!target || target.port === undefined) return reply(client, 400, 'CONNECT takes host:port\n');
  if (!isAllowed(rules.destinations, target.host, target.port))
    return reply(client, 403, refusal(spell(target.host, target.port), rules));
  const upstream: Socket = connect(target.port, unbracket(target.host), () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  track(upstream);
  upstream.on('error', (e) => reply(client, 502, `${spell(target.host, target.port!)}: ${e.message}\n`));
  client.on('close', () => upstream.destroy());
}

function answer(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
  res.end(text);
}

function reply(client: Duplex, status: number, text: string): void {
  if (client.writable)
    client.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
}

function unbracket(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}
