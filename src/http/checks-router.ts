import express, { type Router } from 'express';
import type { Checks } from '../checks/checks.js';
import { actorOf } from '../dashboard/dashboard-auth.js';
import { clip } from '../log-safe.js';
import type { Logger } from '../log.js';

/**
 * The health checks (docs/checks.md#api): GET /api/checks (each check, its state and last runs), POST
 * /api/checks/:name/run (a run now: 202 with the job's id), POST /api/checks/:name/pause and /resume (its schedule
 * and deploys start nothing while paused; a run now still does). Guarded like the rest of /api.
 */
export function checksRouter(checks: Checks, log: Logger): Router {
  const router = express.Router();
  const unknown = (name: string) => ({
    error: `no check named "${clip(name, 64)}" (known: ${checks.list.map((c) => c.name).join(', ') || 'none'}); checks are defined under checks in the config file`,
  });
  const who = (res: express.Response) => actorOf(res)?.name ?? 'anyone (no API token configured)';

  router.get('/', async (req, res) => {
    const limit = Math.min(Math.max(Number(req.query.history ?? 48) || 48, 1), 96);
    res.json({ items: await checks.overview(limit) });
  });
  router.post('/:name/run', async (req, res) => {
    if (!checks.find(req.params.name)) return void res.status(404).json(unknown(req.params.name));
    const job = await checks.runNow(req.params.name);
    log.info({ check: req.params.name, job, by: who(res) }, 'check run requested');
    res.status(202).json({ check: req.params.name, job });
  });
  for (const action of ['pause', 'resume'] as const) {
    router.post(`/:name/${action}`, async (req, res) => {
      if (!checks.find(req.params.name)) return void res.status(404).json(unknown(req.params.name));
      await checks.state.setPaused(req.params.name, action === 'pause');
      log.info({ check: req.params.name, by: who(res) }, `check ${action}d`);
      res.json({ check: req.params.name, paused: action === 'pause' });
    });
  }
  return router;
}
