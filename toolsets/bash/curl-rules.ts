import type { CallVerdict } from '../../src/tools/types.js';
import { isAllowed, parseAuthority, parseCurlHosts, spell } from './destinations.js';
import { parseOptions, type OptionSpec } from './options.js';
import { allow, ask, checkOptions, deny } from './verdicts.js';

const WRITES = 'sends data or changes something: only GET is allowed';
const BYPASS = 'routes around the egress proxy (or chooses where to connect): the proxy is the only way out';

/** The curl options known: harmless flags, options with a value, those never run and those asked about. */
const CURL_OPTIONS: OptionSpec = {
  flags: [
    's',
    'S',
    'f',
    'i',
    'I',
    'G',
    'k',
    'v',
    'p',
    '--silent',
    '--show-error',
    '--fail',
    '--include',
    '--head',
    '--get',
    '--compressed',
    '--insecure',
    '--verbose',
    '--proxytunnel',
  ],
  valued: [
    'H',
    'm',
    'X',
    'x',
    'K',
    '--request',
    '--header',
    '--max-time',
    '--connect-timeout',
    '--retry',
    '--noproxy',
    '--proxy',
    '--preproxy',
    '--socks4',
    '--socks4a',
    '--socks5',
    '--socks5-hostname',
    '--unix-socket',
    '--abstract-unix-socket',
    '--connect-to',
    '--resolve',
    '--config',
    '--doh-url',
    '--dns-servers',
    '--interface',
  ],
  denied: {
    '-d': WRITES,
    '--data': WRITES,
    '--data-raw': WRITES,
    '--data-binary': WRITES,
    '--data-urlencode': WRITES,
    '--json': WRITES,
    '-F': WRITES,
    '--form': WRITES,
    '-T': WRITES,
    '--upload-file': WRITES,
    '-o': 'writes a file',
    '--output': 'writes a file',
    '-O': 'writes a file',
    '--remote-name': 'writes a file',
    '-K': 'reads a config file',
    '--config': 'reads a config file',
    '-L': 'follows redirects to other hosts',
    '--location': 'follows redirects to other hosts',
    '--noproxy': BYPASS,
    '-x': BYPASS,
    '--proxy': BYPASS,
    '--preproxy': BYPASS,
    '--socks4': BYPASS,
    '--socks4a': BYPASS,
    '--socks5': BYPASS,
    '--socks5-hostname': BYPASS,
    '--unix-socket': BYPASS,
    '--abstract-unix-socket': BYPASS,
    '--connect-to': BYPASS,
    '--resolve': BYPASS,
    '--doh-url': BYPASS,
    '--dns-servers': BYPASS,
    '--interface': BYPASS,
    '-p': 'tunnels through the proxy, where it cannot see the method',
    '--proxytunnel': 'tunnels through the proxy, where it cannot see the method',
  },
  ask: {
    '-u': 'sends credentials',
    '--user': 'sends credentials',
  },
};

/** curl: one GET (or HEAD) to a configured host:port runs; sending data, writing files, other routes never do. */
export function checkCurl(args: string[], curlHosts: string[]): CallVerdict {
  const p = parseOptions(args, CURL_OPTIONS);
  const fromFile = p.options.find((o) => (o.name === '-H' || o.name === '--header') && (o.value ?? '').startsWith('@'));
  if (fromFile)
    return deny(`curl ${fromFile.name} @file reads headers from a file on the Lestrade host (and sends them)`);
  const method = checkMethod(p.options);
  if (method.decision !== 'allow') return method;
  const verdict = checkOptions('curl', { ...p, operands: [] }, 0);
  if (verdict.decision !== 'allow') return verdict;
  if (p.operands.length !== 1) return ask(p.operands.length === 0 ? 'curl without a URL' : 'curl of several URLs');
  return checkUrl(p.operands[0]!, curlHosts);
}

/** curl obeys the last -X of several: more than one is refused, and the one must be GET or HEAD as written. */
function checkMethod(options: Array<{ name: string; value?: string }>): CallVerdict {
  const methods = options.filter((o) => o.name === '-X' || o.name === '--request');
  if (methods.length > 1)
    return deny(`curl: -X/--request given ${methods.length} times (curl uses the last one): give one, GET or HEAD`);
  const method = methods[0]?.value;
  if (method !== undefined && method !== 'GET' && method !== 'HEAD') return deny(`curl -X ${method} ${WRITES}`);
  return allow;
}

const HINT = 'write it as http(s)://host[:port]/path';

/**
 * The one URL, in the one form curl and any other parser read alike: a lower-case http or https
 * scheme, "//", a host (name, dotted IPv4 or [IPv6]) and an optional port, then the path. Anything
 * else (credentials, backslashes, spaces, braces, percent-escapes in the host) is refused: parsers
 * disagree on where such a host ends. The host:port must be in toolsets.bash.curlHosts.
 */
function checkUrl(operand: string, curlHosts: string[]): CallVerdict {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(operand)?.[1];
  if (scheme === undefined) return deny(`curl of ${JSON.stringify(operand)}: ${HINT}`);
  const lower = scheme.toLowerCase();
  if (lower !== 'http' && lower !== 'https') return deny(`curl of a ${lower}: URL: only http and https`);
  const m = /^(https?):\/\/([^/?#]*)([/?#][^\s\\]*)?$/.exec(operand);
  const authority = m ? parseAuthority(m[2]!) : null;
  if (!m || !authority || /[A-Z]/.test(m[2]!))
    return deny(`curl of a URL written in a form parsers read differently (${JSON.stringify(operand)}): ${HINT}`);
  const port = authority.port ?? (m[1] === 'https' ? 443 : 80);
  if (isAllowed(parseCurlHosts(curlHosts).destinations, authority.host, port)) return allow;
  const where = spell(authority.host, port);
  return deny(
    `curl to ${where}, which is not in toolsets.bash.curlHosts: add "${where}" to toolsets.bash.curlHosts to reach it (the egress proxy reaches nothing else)`,
  );
}
