import type { RequestHandler } from 'express';
import { checkAuthorization } from '../check-credentials.js';

/** What GET /metrics renders: the Prometheus exposition text and its content type. */
export interface MetricsExposition {
  render(): Promise<string>;
  readonly contentType: string;
}

/**
 * GET /metrics. With server.metricsToken (LESTRADE_METRICS_TOKEN) set, only "Authorization:
 * Bearer <token>" may read it (Prometheus: `authorization: { credentials_file: ... }`); unset, it
 * is open like /healthz: the labels carry no ids, no free text and no secrets.
 */
export function metricsRoute(metrics: MetricsExposition, tokens: string[]): RequestHandler {
  return async (req, res) => {
    if (!checkAuthorization(req.get('authorization'), { bearerTokens: tokens })) {
      res
        .status(401)
        .set('www-authenticate', 'Bearer')
        .json({ error: 'unauthorized: /metrics needs the bearer token of LESTRADE_METRICS_TOKEN' });
      return;
    }
    const body = await metrics.render();
    res.status(200).set('content-type', metrics.contentType).send(body);
  };
}
