import { ConfigError } from '../../src/errors.js';
import type { SourceRegistration } from '../../src/registration/source.js';
import { AlertmanagerSource } from './alertmanager-source.js';
import { ALERTMANAGER_ENV, AlertmanagerConfigSchema, type AlertmanagerConfig } from './config.js';
import { SOURCE } from './map.js';
import { alertmanagerWebhook } from './webhook.js';

/** Prometheus Alertmanager: webhook receiver and pull mode (API v2); it has nowhere to write back. */
export const alertmanager: SourceRegistration<AlertmanagerConfig> = {
  name: SOURCE,
  configSchema: AlertmanagerConfigSchema,
  env: ALERTMANAGER_ENV,
  disabledReason: () => null,
  webhookWarnings: (c) => {
    if (c.bearerToken || c.basicAuth) return [];
    if (c.allowUnauthenticated)
      return [
        'no ALERTMANAGER_WEBHOOK_TOKEN or basic auth set and ALERTMANAGER_ALLOW_UNAUTHENTICATED: /webhooks/alertmanager accepts unauthenticated requests',
      ];
    return [
      'no ALERTMANAGER_WEBHOOK_TOKEN or basic auth set: /webhooks/alertmanager refuses every delivery (401); set the token (and send it from Alertmanager), or ALERTMANAGER_ALLOW_UNAUTHENTICATED=true',
    ];
  },
  webhook: (c) => alertmanagerWebhook(c),
  pull: {
    description: "investigate Alertmanager's active alerts (API v2)",
    noun: 'active alert',
    options: [
      {
        flags: '--alertmanager-url <url>',
        description: 'Alertmanager base URL, e.g. http://localhost:9093 (or ALERTMANAGER_URL)',
      },
      { flags: '--label <key=value>', description: 'only alerts with this label (repeatable)', repeatable: true },
      { flags: '--alertname <regex>', description: 'only alerts whose alertname matches' },
    ],
    prepare(config, opts) {
      const url = (opts.alertmanagerUrl as string | undefined) ?? config.url;
      if (!url) throw new ConfigError('--alertmanager-url (or ALERTMANAGER_URL) is required');
      const labels = Object.fromEntries(((opts.label as string[] | undefined) ?? []).map(parseLabel));
      const titlePattern = opts.alertname ? new RegExp(opts.alertname as string) : undefined;
      return {
        client: new AlertmanagerSource(url),
        query: { labels, titlePattern, limit: opts.limit as number | undefined },
      };
    },
  },
};

function parseLabel(pair: string): [string, string] {
  const i = pair.indexOf('=');
  if (i <= 0) throw new ConfigError(`--label ${pair}: expected key=value`);
  return [pair.slice(0, i), pair.slice(i + 1)];
}
