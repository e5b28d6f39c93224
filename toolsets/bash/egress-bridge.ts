/** Where the egress proxy's socket and the pinned kubeconfig appear inside the sandbox. */
export const SANDBOX_SOCKET = '/run/lestrade/egress.sock';
export const SANDBOX_KUBECONFIG = '/run/lestrade/kubeconfig';
/** The proxy as the sandboxed program sees it: on the sandbox's own loopback (its network namespace has nothing else). */
export const PROXY_URL = 'http://127.0.0.1:3128';

export const SOCAT_FIX =
  "install socat (Debian/Ubuntu: apt-get install socat): it carries the sandbox's connections to Lestrade's egress proxy, the only way out of the sandbox; or set toolsets.bash.sandbox: none (LESTRADE_BASH_SANDBOX=none)";

/**
 * Run inside the sandbox before curl or kubectl: socat listens on 127.0.0.1:3128 (in the sandbox's
 * own network namespace) and carries each connection to the proxy's Unix socket; once it listens
 * (port 3128 = 0C38 in /proc/net/tcp, state 0A), the program replaces the shell. The program's
 * argv (and socat's path) come after the script as arguments, never inside it: no word of the
 * command line is shell text.
 */
export function bridgeArgv(socat: string, argv: string[]): string[] {
  const script = [
    'socat="$1"',
    'shift',
    `"$socat" TCP-LISTEN:3128,bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:${SANDBOX_SOCKET} </dev/null >/dev/null 2>&1 &`,
    'i=0',
    "until grep -q ' 0100007F:0C38 00000000:0000 0A' /proc/net/tcp; do",
    '  i=$((i + 1))',
    "  if [ $i -gt 500 ]; then echo 'lestrade: the egress bridge (socat) did not start' >&2; exit 125; fi",
    '  sleep 0.01',
    'done',
    'exec "$@"',
  ].join('\n');
  return ['/bin/sh', '-c', script, 'lestrade-egress', socat, ...argv];
}

/** What curl (and kubectl's exec plugins) read to find the proxy. curl ignores upper-case HTTP_PROXY. */
export const PROXY_ENV: Record<string, string> = {
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
};
