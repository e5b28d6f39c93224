import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../../toolsets/bash/policy.js';

const cfg = { allow: [], deny: [], curlHosts: ['127.0.0.1:18999', 'prometheus:9090', 'grafana.example'] };
const verdict = async (command: string) => (await checkCommand(command, cfg)).verdict;
const reasonOf = async (command: string) => {
  const v = await verdict(command);
  return v.decision === 'allow' ? 'allow' : `${v.decision}: ${v.reason}`;
};

/**
 * issue 30, defect 1: the policy read the URL with WHATWG's parser and curl with its own, so
 * `http://127.0.0.1:18999\@127.0.0.1:18998/` was judged as going to 18999 and went to 18998. The
 * policy now takes only URLs written in the one form both read alike (scheme://host[:port][/...]);
 * the egress proxy holds the rest.
 */
describe('curl: URL forms that parsers read differently are refused', () => {
  it.each([
    'curl -s "http://127.0.0.1:18999\\@127.0.0.1:18998/exfil"',
    'curl -s http://127.0.0.1:18999@127.0.0.1:18998/',
    'curl -s http://user:pw@127.0.0.1:18999/',
    'curl -s "http://{127.0.0.1,evil.example}:18999/"',
    'curl -s "http://127.0.0.1:18999 /"',
    'curl -s HTTP://127.0.0.1:18999/',
    'curl -s "http://127.0.0.1%3a18999/"',
    'curl -s http:/127.0.0.1:18999/',
    'curl -s http:127.0.0.1:18999/',
    'curl -s //127.0.0.1:18999/',
  ])('refuses %s', async (command) => {
    expect(await reasonOf(command)).toMatch(/^deny: curl of a URL written in a form|^deny: curl of "/);
  });

  it.each([
    ['curl -s http://2130706433:18999/', '2130706433:18999'],
    ['curl -s http://0x7f.1:18999/', '0x7f.1:18999'],
    ['curl -s http://[::ffff:127.0.0.1]:18999/', '[::ffff:127.0.0.1]:18999'],
    ['curl -s http://127.0.0.1:18998/', '127.0.0.1:18998'],
    ['curl -s http://prometheus/', 'prometheus:80'],
    ['curl -s https://prometheus:9090.evil.example/', null],
  ])('refuses %s: not the host:port configured', async (command, dest) => {
    const r = await reasonOf(command);
    expect(r).toMatch(/^deny: /);
    if (dest) expect(r).toContain(`add "${dest}" to toolsets.bash.curlHosts`);
  });

  it.each([
    'curl -s http://127.0.0.1:18999/api/v1/alerts',
    'curl -s "http://127.0.0.1:18999/api?x=1#frag"',
    'curl -s http://prometheus:9090',
    'curl -sI http://grafana.example/',
    'curl -s https://grafana.example/api/health',
    'curl -s "http://127.0.0.1:18999#@127.0.0.1:18998/"',
  ])('allows %s', async (command) => {
    expect(await verdict(command)).toEqual({ decision: 'allow' });
  });
});

/** issue 30, defect 2: the policy read the first -X, curl obeys the last. */
describe('curl: the method is one GET or HEAD, however often and however written', () => {
  it.each([
    'curl -X GET -X DELETE http://127.0.0.1:18999/api/v2/silences/all',
    'curl --request GET --request PUT http://127.0.0.1:18999/',
    'curl -XGET -XPOST http://127.0.0.1:18999/',
    'curl -X GET --request=DELETE http://127.0.0.1:18999/',
    'curl -sXGET -sXDELETE http://127.0.0.1:18999/',
    'curl -X GET -X GET http://127.0.0.1:18999/',
  ])('refuses %s', async (command) => {
    expect(await reasonOf(command)).toMatch(/^deny: curl: -X\/--request given 2 times/);
  });

  it.each([
    'curl -X DELETE http://127.0.0.1:18999/',
    'curl -X get http://127.0.0.1:18999/',
    'curl -XPOST http://127.0.0.1:18999/',
  ])('refuses %s', async (command) => {
    expect(await reasonOf(command)).toMatch(/^deny: curl -X \S+ sends data or changes something/);
  });

  it.each([
    'curl -X GET http://127.0.0.1:18999/',
    'curl -XHEAD http://127.0.0.1:18999/',
    'curl --head http://127.0.0.1:18999/',
  ])('allows %s', async (command) => {
    expect(await verdict(command)).toEqual({ decision: 'allow' });
  });
});

/** The egress proxy is curl's one way out: options that route around it or pick another address are refused. */
describe('curl: options that bypass the egress proxy or choose where to connect are refused', () => {
  it.each([
    '--noproxy "*"',
    '--noproxy=127.0.0.1',
    '-x http://127.0.0.1:18998',
    '--proxy http://127.0.0.1:18998',
    '--preproxy socks5://127.0.0.1:1080',
    '--socks5 127.0.0.1:1080',
    '--socks5-hostname 127.0.0.1:1080',
    '--socks4 127.0.0.1:1080',
    '--socks4a 127.0.0.1:1080',
    '--unix-socket /run/lestrade/egress.sock',
    '--abstract-unix-socket x',
    '--connect-to 127.0.0.1:18999:127.0.0.1:18998',
    '--resolve 127.0.0.1:18999:127.0.0.1',
    '-K /tmp/x',
    '--config /tmp/x',
    '--proxytunnel',
    '-p',
    '--doh-url http://127.0.0.1:18998/',
    '--interface lo',
  ])('refuses curl %s', async (option) => {
    expect(await reasonOf(`curl -s ${option} http://127.0.0.1:18999/`)).toMatch(/^deny: curl -/);
  });
});
