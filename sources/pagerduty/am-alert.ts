/** One Prometheus alert as Alertmanager's PagerDuty integration describes it inside an alert's details. */
export interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The alert's generatorURL (the `Source:` line of the text format). */
  source?: string;
  /** Only in the JSON format (Alertmanager 0.30+): with fingerprint, the alert's identity. */
  startsAt?: string;
  fingerprint?: string;
}

/** An alert's labels and annotations as text, in the 0.29 notifier's own layout (for the prompt). */
export function amAlertText(a: AmAlert): string {
  const pairs = (r: Record<string, string>) => Object.entries(r).map(([k, v]) => ` - ${k} = ${v}`);
  return [
    'Labels:',
    ...pairs(a.labels),
    'Annotations:',
    ...pairs(a.annotations),
    ...(a.source ? [`Source: ${a.source}`] : []),
    ...(a.startsAt ? [`StartsAt: ${a.startsAt}`] : []),
  ].join('\n');
}
