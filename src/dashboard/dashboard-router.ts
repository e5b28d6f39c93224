import express, { type Request, type Response, type Router } from 'express';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Intake } from '../queue/intake-queue.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { BudgetGuard } from '../budget/budget-guard.js';
import type { ToolsetStatus } from '../tools/types.js';
import { isInvestigationId } from '../redis/keys.js';
import { resolveInvestigationId } from '../store/id-prefix.js';
import type { ChangeFeed } from './change-feed.js';
import { changeStream } from './change-stream.js';
import { requireSignIn, resolveSession, signInRoutes, type AuthDeps } from './dashboard-auth.js';
import { listView, readFilters, SEVERITIES, SINCE, STATUSES } from './list-view.js';
import { ASSETS_DIR, createPageRenderer, type RenderPage } from './page-renderer.js';
import { detailView } from './detail-view.js';
import { parseDays } from '../quality/quality-days.js';
import { qualityReport } from '../quality/quality-report.js';
import { FeedbackStore } from '../store/feedback-store.js';
import { qualityView } from './quality-view.js';
import type { CheckOverview, Checks } from '../checks/checks.js';

/** How many runs a check's strip shows. */
const STRIP_RUNS = 48;

/** A check as its card shows it: the strip oldest first, the last run and its evidence (escaped by the template). */
function checkCard(c: CheckOverview) {
  return { ...c, strip: [...c.history].reverse(), last: c.history[0] ?? null, evidence: c.lastEvidence };
}

export interface DashboardDeps extends AuthDeps {
  redis: RedisClient;
  store: InvestigationStore;
  intake: Intake;
  llmConfigured: boolean;
  /** Whether the API takes approvals and follow-ups in this process (it does with a RunControl). */
  actions: boolean;
  budgets?: BudgetGuard;
  /** What `lestrade toolsets list` computes; absent when this process cannot tell. */
  toolsets?: () => Promise<ToolsetStatus[]>;
  changes?: ChangeFeed;
  /** People's verdicts on RCAs: listed on the investigation page, which rates through POST /api/…/feedback. */
  feedback?: FeedbackStore;
  /** Map the placeholders of redaction back to the values on the investigation page (`redaction.restoreIn: [dashboard]`). */
  restorePlaceholders?: boolean;
  /** The health checks: the Checks page (docs/checks.md). */
  checks?: Checks;
}

/** The dashboard: pages at /, /investigations/:id, /toolsets, /queue, /quality, /checks; its assets and event stream under /ui. */
export function dashboardRouter(deps: DashboardDeps): Router {
  const router = express.Router();
  const render = createPageRenderer();
  router.use('/ui/assets', express.static(ASSETS_DIR, { index: false, maxAge: '1h' }));
  // Pages link the SVG icon; a browser on a page that names none (a kept output) still asks here.
  router.get('/favicon.ico', (_req, res) => res.redirect(301, '/ui/assets/favicon.svg'));
  router.use(resolveSession(deps));
  router.use(signInRoutes(deps, (res, error) => render(res, 'login.njk', { error }, res.statusCode)));
  const page = express.Router();
  page.use(requireSignIn);
  page.get('/ui/events', changeStream(deps.changes));
  page.get('/', (req, res) => listPage(deps, render, req, res));
  page.get('/investigations/:id', (req, res) => detailPage(deps, render, req, res));
  page.get('/toolsets', async (_req, res) => {
    const toolsets = deps.toolsets ? await deps.toolsets() : null;
    render(res, 'toolsets.njk', { nav: 'toolsets', toolsets });
  });
  page.get('/queue', (_req, res) => queuePage(deps, render, res));
  page.get('/quality', (req, res) => qualityPage(deps, render, req, res));
  page.get('/checks', async (_req, res) => {
    const checks = deps.checks ? (await deps.checks.overview(STRIP_RUNS)).map(checkCard) : [];
    render(res, 'checks.njk', { nav: 'checks', checks });
  });
  router.use(page);
  return router;
}

async function queuePage(deps: DashboardDeps, render: RenderPage, res: Response): Promise<void> {
  const [counts, waiting, budgets] = await Promise.all([
    deps.intake.jobCounts(),
    deps.intake.waitingStats(),
    deps.budgets?.enabled ? deps.budgets.status() : Promise.resolve([]),
  ]);
  // What a budget or a group's quiet time holds back: the newest queued records that say why they wait.
  const queued = (await deps.store.list(200, 0)).filter((r) => r.status === 'queued');
  const records = await Promise.all(queued.map((r) => deps.store.get(r.id)));
  const holding = records.flatMap((i) =>
    i?.waitingReason ? [{ id: i.id, title: i.title, reason: i.waitingReason, until: i.waitingUntil }] : [],
  );
  const limits = budgets.map((b) => ({ ...b, reached: b.used >= b.limit }));
  render(res, 'queue.njk', { nav: 'queue', counts, waiting, budgets: limits, holding });
}

async function qualityPage(deps: DashboardDeps, render: RenderPage, req: Request, res: Response): Promise<void> {
  let days: number;
  try {
    days = parseDays(req.query);
  } catch (err) {
    return render(res, 'quality.njk', { nav: 'quality', error: (err as Error).message }, 400);
  }
  const report = await qualityReport(deps.redis, deps.feedback ?? new FeedbackStore(deps.redis), days);
  render(res, 'quality.njk', { nav: 'quality', ...qualityView(report) });
}

async function listPage(deps: DashboardDeps, render: RenderPage, req: Request, res: Response): Promise<void> {
  const filters = readFilters(req.query);
  const view = await listView(deps.store, deps.redis, filters);
  const query = (over: Record<string, string | number>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...over })) {
      if (v !== '' && !(k === 'page' && v === 1)) params.set(k, String(v));
    }
    const text = params.toString();
    return text ? `/?${text}` : '/';
  };
  render(res, 'list.njk', {
    nav: 'list',
    filters,
    view,
    statuses: STATUSES,
    severities: SEVERITIES,
    sinces: Object.keys(SINCE),
    query,
    llmConfigured: deps.llmConfigured,
  });
}

async function detailPage(deps: DashboardDeps, render: RenderPage, req: Request, res: Response): Promise<void> {
  const ref = String(req.params.id);
  if (!isInvestigationId(ref)) return shortIdPage(deps, render, ref, res);
  const stored = await deps.store.get(ref);
  if (!stored) return render(res, 'not-found.njk', { what: 'investigation' }, 404);
  const inv = deps.restorePlaceholders ? await deps.store.restored(stored) : stored;
  const verdicts = deps.feedback ? await deps.feedback.list(inv.id) : [];
  const view = detailView(inv, deps.store.redact, verdicts);
  const rateable = Boolean(deps.feedback && inv.rca);
  render(res, 'detail.njk', { nav: 'list', ...view, actions: deps.actions, rateable, pageId: inv.id });
}

/** /investigations/<short id>: redirected to the whole id; an ambiguous one lists the investigations it may mean. */
async function shortIdPage(deps: DashboardDeps, render: RenderPage, ref: string, res: Response): Promise<void> {
  const found = await resolveInvestigationId(deps.redis, ref);
  if (found.kind === 'found') return res.redirect(302, `/investigations/${found.id}`);
  if (found.kind === 'none') return render(res, 'not-found.njk', { what: 'investigation', reason: found.reason }, 404);
  render(res, 'ambiguous-id.njk', { nav: 'list', ref, candidates: found.candidates, more: found.more }, 409);
}
