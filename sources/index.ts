import type { Config } from '../src/config/schema.js';
import type { WebhookReceiver } from '../src/source.js';
import { alertmanagerReceiver } from './alertmanager/receiver.js';

/** Every source's webhook receiver, built from configuration. New sources add one line here. */
export function webhookReceivers(config: Config): WebhookReceiver[] {
  const am = config.sources.alertmanager;
  return [
    alertmanagerReceiver({ bearerTokens: am.bearerToken ? am.bearerToken.split(',').map((t) => t.trim()).filter(Boolean) : [], basic: am.basicAuth }),
  ];
}
