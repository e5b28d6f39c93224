import { execFileSync } from 'node:child_process';

const HINTS: Record<string, string> = {
  'redis-server': 'apt-get install -y redis-server',
  prometheus: 'apt-get install -y prometheus',
  promtool: 'apt-get install -y prometheus (promtool comes with it)',
  'prometheus-alertmanager': 'apt-get install -y prometheus-alertmanager',
  'redis-cli': 'apt-get install -y redis-tools',
  openssl: 'apt-get install -y openssl',
  bwrap: 'apt-get install -y bubblewrap',
  socat: 'apt-get install -y socat',
  jq: 'apt-get install -y jq',
  amtool: 'apt-get install -y prometheus-alertmanager',
  kubectl: 'kubectl from the Kubernetes apt repository (https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/)',
  chromium: 'apt-get install -y chromium',
  script: 'apt-get install -y bsdutils (util-linux: a pseudo-terminal for CLI prompts)',
};

/** Fails (never skips) when a component the suite needs is missing, saying how to install it. */
export function requireBinary(name: string): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      `${name} is not installed; the suite needs the real thing. Install it with: ${HINTS[name] ?? name} (or run npm test, which installs it on Debian/Ubuntu)`,
    );
  }
}
