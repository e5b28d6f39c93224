import type { Query } from './openapi-double.js';

export function firstString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function intParam(q: Query, name: string, fallback: number): number {
  const n = Number.parseInt(firstString(q[name]) ?? '', 10);
  return Number.isFinite(n) ? n : fallback;
}

/** GitHub's page/per_page: per_page defaults to 30 and is capped at 100, pages count from 1. */
export function githubPage(q: Query): { page: number; perPage: number } {
  return {
    page: Math.max(1, intParam(q, 'page', 1)),
    perPage: Math.min(100, Math.max(1, intParam(q, 'per_page', 30))),
  };
}

/**
 * One page of `items` and the RFC 5988 Link header GitHub sends with it (prev, next, last, first;
 * absent when everything fits on one page), built on the URL the client asked for.
 */
export function githubPaged<T>(
  items: readonly T[],
  q: Query,
  url: URL,
): { items: T[]; headers: Record<string, string> } {
  const { page, perPage } = githubPage(q);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const at = (p: number): string => {
    const u = new URL(url);
    u.searchParams.set('page', String(p));
    return u.toString();
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`<${at(Math.min(page - 1, last))}>; rel="prev"`);
  if (page < last) rels.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  if (page > 1) rels.push(`<${at(1)}>; rel="first"`);
  return { items: slice, headers: rels.length ? { link: rels.join(', ') } : {} };
}
