import type { Config } from '../src/config/schema.js';
import { splitTokens } from '../src/http/check-credentials.js';
import type { WebhookReceiver } from '../src/source.js';
import { alertmanagerReceiver } from './alertmanager/receiver.js';

/** Every source's webhook receiver, built from configuration. New sources add one line here. */
export function webhookReceivers(config: Config): WebhookReceiver[] {
  const am = config.sources.alertmanager;
  return [
    alertmanagerReceiver({ bearerTokens: splitTokens(am.bearerToken), basic: am.basicAuth }, { maxAlertsPerDelivery: am.maxAlertsPerDelivery }),
  ];
}
