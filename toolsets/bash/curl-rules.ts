import type { CallVerdict } from '../../src/tools/types.js';
import { parseOptions, type OptionSpec } from './options.js';
import { allow, ask, checkOptions, deny } from './verdicts.js';

const WRITES = 'sends data or changes something: only GET is allowed';

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
    '--silent',
    '--show-error',
    '--fail',
    '--include',
    '--head',
    '--get',
    '--compressed',
    '--insecure',
    '--verbose',
  ],
  valued: ['H', 'm', 'X', '--request', '--header', '--max-time', '--connect-timeout', '--retry'],
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
  },
  ask: {
    '-u': 'sends credentials',
    '--user': 'sends credentials',
    '-x': 'goes through a proxy',
    '--proxy': 'goes through a proxy',
  },
};

/** curl: GET to the configured hosts runs; sending data, writing files or following redirects never does. */
export function checkCurl(args: string[], curlHosts: string[]): CallVerdict {
  const p = parseOptions(args, CURL_OPTIONS);
  const fromFile = p.options.find((o) => (o.name === '-H' || o.name === '--header') && (o.value ?? '').startsWith('@'));
  if (fromFile)
    return deny(`curl ${fromFile.name} @file reads headers from a file on the Lestrade host (and sends them)`);
  const method = p.options.find((o) => o.name === '-X' || o.name === '--request');
  if (method && !['GET', 'HEAD'].includes((method.value ?? '').toUpperCase()))
    return deny(`curl -X ${method.value} ${WRITES}`);
  const verdict = checkOptions('curl', { ...p, operands: [] }, 0);
  if (verdict.decision !== 'allow') return verdict;
  if (p.operands.length !== 1) return ask(p.operands.length === 0 ? 'curl without a URL' : 'curl of several URLs');
  return checkUrl(p.operands[0]!, curlHosts);
}

/** The one URL: absolute, http or https, no credentials in it, to a configured host. */
function checkUrl(operand: string, curlHosts: string[]): CallVerdict {
  let url: URL;
  try {
    url = new URL(operand);
  } catch {
    return ask(`curl of ${JSON.stringify(operand)}, which is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return deny(`curl of a ${url.protocol} URL: only http and https`);
  if (url.username || url.password) return ask('curl with credentials in the URL');
  return curlHosts.includes(url.host) || curlHosts.includes(url.hostname)
    ? allow
    : ask(`curl to ${url.host}, which is not in toolsets.bash.curlHosts`);
}
