import express, { type Router } from 'express';
import { actorOf } from '../dashboard/dashboard-auth.js';
import { clip } from '../log-safe.js';
import type { Logger } from '../log.js';
import type { MemoryStore } from '../memory/memory-store.js';
import { isInvestigationId } from '../redis/keys.js';

/**
 * GET /api/memory/:id (what is remembered of an investigation) and DELETE /api/memory/:id (forget
 * it: 204, or 404 when nothing is remembered). Guarded like the rest of /api (a token or a
 * dashboard session with its CSRF token); short ids are resolved before it (investigation-ref.ts).
 */
export function memoryRouter(memory: MemoryStore, log?: Logger): Router {
  const router = express.Router();
  const none = (id: string) => ({ error: `nothing remembered of investigation ${clip(id, 64)}` });

  router.get('/:id', async (req, res) => {
    const rec = isInvestigationId(req.params.id) ? await memory.get(req.params.id) : null;
    if (!rec) return void res.status(404).json(none(req.params.id));
    res.json(rec);
  });

  router.delete('/:id', async (req, res) => {
    const id = req.params.id;
    if (!isInvestigationId(id) || !(await memory.forget(id))) return void res.status(404).json(none(id));
    const actor = actorOf(res);
    log?.info(
      { id, by: actor?.name ?? 'anyone (no API token configured)', via: actor?.via ?? 'api' },
      'memory forgotten',
    );
    res.status(204).end();
  });
  return router;
}
