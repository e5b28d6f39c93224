import { fuzzWebhook } from './webhook-properties.js';
import { endpointNamed } from './webhook-endpoints.js';

/** The webhook properties (webhook-properties.ts) on the opsgenie row of WEBHOOK_ENDPOINTS; one file per row, so rows run in parallel. */
fuzzWebhook(endpointNamed('opsgenie'));
