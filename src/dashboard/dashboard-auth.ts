import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { bearerNamed, tokenNamed, type NamedToken } from '../named-tokens.js';
import { readCookie, sameOrigin, SESSION_COOKIE, sessionCookie } from './cookies.js';
import type { Session, SessionStore } from './sessions.js';
import type { SignInLimit } from './sign-in-limit.js';

export interface AuthDeps {
  /** The API's named tokens (LESTRADE_API_TOKENS, LESTRADE_API_TOKEN); empty leaves the dashboard open, as /api is. */
  apiTokens: NamedToken[];
  sessions: SessionStore;
  /** Failed sign-ins per client address; without one, /login does not limit guesses. */
  signInLimit?: SignInLimit;
}

/** What a signed-in request carries in res.locals. */
export interface SignedIn {
  session: Session | null;
  /** False when no token is configured: the dashboard is open. */
  authEnabled: boolean;
}

export const CSRF_HEADER = 'x-csrf-token';

/**
 * Who an authenticated /api request is, in res.locals.actor: the name of the token it carried, or
 * of the token its dashboard session was signed in with. Absent when no token is configured.
 */
export interface Actor {
  name: string;
  via: 'api' | 'dashboard';
}

/** The authenticated caller of this request, if any (set by apiAccess). */
export function actorOf(res: Response): Actor | undefined {
  return (res.locals as { actor?: Actor }).actor;
}

function same(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Reads the session cookie into res.locals (session, authEnabled); never refuses anything itself. */
export function resolveSession(deps: AuthDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const authEnabled = deps.apiTokens.length > 0;
    const session = authEnabled ? await deps.sessions.get(readCookie(req.get('cookie'), SESSION_COOKIE)) : null;
    Object.assign(res.locals, { session, authEnabled } satisfies SignedIn);
    next();
  };
}

/** Pages: a browser without a session is sent to the sign-in form; the event stream gets 401. */
export function requireSignIn(req: Request, res: Response, next: NextFunction): void {
  const { session, authEnabled } = res.locals as SignedIn;
  if (!authEnabled || session) return next();
  if (req.method === 'GET' && (req.get('accept') ?? '').includes('text/html')) return res.redirect(303, '/login');
  res.status(401).json({ error: 'sign in at /login first' });
}

/**
 * An action by a signed-in browser: from a page of this origin, carrying the session's CSRF token
 * (header or form field). SameSite=Strict already keeps the cookie off other sites' requests.
 */
export function csrfOk(req: Request, session: Session): boolean {
  const sent = req.get(CSRF_HEADER) ?? formField(req, '_csrf');
  return sameOrigin(req) && sent.length > 0 && same(sent, session.csrf);
}

/**
 * /api: a bearer token as before, or a dashboard session (reads freely; writes with the CSRF
 * token and from this origin). With no token configured, open.
 */
export function apiAccess(deps: AuthDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (deps.apiTokens.length === 0) return next();
    const bearer = bearerNamed(req.get('authorization'), deps.apiTokens);
    if (bearer) {
      res.locals.actor = { name: bearer.name, via: 'api' } satisfies Actor;
      return next();
    }
    const session = await deps.sessions.get(readCookie(req.get('cookie'), SESSION_COOKIE));
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (session && (reading || csrfOk(req, session))) {
      // A session from before sessions carried a name is still someone signed in with a token.
      res.locals.actor = { name: session.name ?? 'dashboard', via: 'dashboard' } satisfies Actor;
      return next();
    }
    res.status(401).json({ error: session ? 'missing or wrong X-CSRF-Token, or a foreign Origin' : 'unauthorized' });
  };
}

/** GET /login (the form), POST /login (token → session cookie), POST /logout. */
export function signInRoutes(deps: AuthDeps, renderLogin: (res: Response, error?: string) => void): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: 8 * 1024 });
  router.get('/login', (_req, res) => {
    if (deps.apiTokens.length === 0) return res.redirect(303, '/');
    renderLogin(res);
  });
  router.post('/login', form, async (req, res) => {
    if (deps.apiTokens.length === 0) return res.redirect(303, '/');
    if (!sameOrigin(req)) return refuse(res, 'sign-in refused: the form must be posted from this site');
    const address = clientAddress(req);
    // The attempt is counted before any comparison, in one step: a burst cannot compare more than the limit.
    const wait = (await deps.signInLimit?.take(address)) ?? 0;
    if (wait > 0) {
      res.status(429).setHeader('retry-after', String(wait));
      return renderLogin(res, `Too many failed sign-ins from this address: try again in ${minutes(wait)}.`);
    }
    const token = formField(req, 'token');
    const named = token ? tokenNamed(token, deps.apiTokens) : null;
    if (!named) {
      res.status(401);
      return renderLogin(res, 'That is not one of the tokens in LESTRADE_API_TOKENS or LESTRADE_API_TOKEN.');
    }
    // A right token does not count against the address.
    await deps.signInLimit?.giveBack(address);
    const { id } = await deps.sessions.create(named.name);
    res.setHeader('set-cookie', sessionCookie(req, id, deps.sessions.ttl));
    res.redirect(303, '/');
  });
  router.post('/logout', form, async (req, res) => {
    const id = readCookie(req.get('cookie'), SESSION_COOKIE);
    const session = await deps.sessions.get(id);
    if (session && !csrfOk(req, session)) return refuse(res, 'sign-out refused: bad CSRF token or Origin');
    await deps.sessions.destroy(id);
    res.setHeader('set-cookie', sessionCookie(req, '', 0));
    res.redirect(303, deps.apiTokens.length ? '/login' : '/');
  });
  return router;
}

/**
 * The peer's address as the socket saw it. X-Forwarded-For is not read: anyone can write it. Behind a
 * reverse proxy every client shares the proxy's address, and so its count (docs/dashboard.md).
 */
function clientAddress(req: Request): string {
  return req.socket.remoteAddress ?? 'unknown';
}

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m === 1 ? '1 minute' : `${m} minutes`;
}

function refuse(res: Response, why: string): void {
  res.status(403).type('text/plain').send(why);
}

/** A string field of the posted form ('' when the body is no form or the field is missing or not a string). */
function formField(req: Request, name: string): string {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}
