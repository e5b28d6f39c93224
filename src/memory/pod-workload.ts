/**
 * The workload a pod belongs to, from the pod's name as Kubernetes makes it: a Deployment's
 * `<name>-<replicaset hash>-<suffix>`, a CronJob's `<name>-<schedule time>-<suffix>`, a DaemonSet's
 * `<name>-<suffix>`, a StatefulSet's `<name>-<ordinal>`. Suffixes and hashes use Kubernetes' own
 * alphabet (no vowels, no 0, 1, 3), so ordinary words are not taken for them. A name of no such form
 * (a static pod) names no workload: undefined.
 */
const K = '[bcdfghjklmnpqrstvwxz2456789]';
const FORMS = [
  new RegExp(`^(.+)-${K}{6,10}-${K}{5}$`),
  /^(.+)-\d{8,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
  new RegExp(`^(.+)-${K}{5}$`),
  /^(.+)-\d{1,4}$/,
];

export function podWorkload(pod: string): string | undefined {
  for (const form of FORMS) {
    const m = form.exec(pod);
    if (m) return m[1];
  }
  return undefined;
}
