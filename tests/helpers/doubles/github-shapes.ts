/** GitHub's JSON for the double's state, shaped per the spec's response schemas (the double checks itself against them). */
import type { GhComment, GhIssue, GhRepo, GhUser, GithubState, Permission } from './github-state.js';

type Json = Record<string, unknown>;

export const DOCS = 'https://docs.github.com/rest';

export function ghError(status: number, message: string, extra: Json = {}): { status: number; body: Json } {
  return { status, body: { message, documentation_url: DOCS, status: String(status), ...extra } };
}

export function simpleUser(u: GhUser, api: string): Json {
  const base = `${api}/users/${encodeURIComponent(u.login)}`;
  return {
    login: u.login,
    id: u.id,
    node_id: `U_${u.id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
    gravatar_id: '',
    url: base,
    html_url: `https://github.com/${u.login}`,
    followers_url: `${base}/followers`,
    following_url: `${base}/following{/other_user}`,
    gists_url: `${base}/gists{/gist_id}`,
    starred_url: `${base}/starred{/owner}{/repo}`,
    subscriptions_url: `${base}/subscriptions`,
    organizations_url: `${base}/orgs`,
    repos_url: `${base}/repos`,
    events_url: `${base}/events{/privacy}`,
    received_events_url: `${base}/received_events`,
    type: u.type,
    site_admin: false,
    user_view_type: 'public',
  };
}

/** The user behind a token, as GET /user shows it to that user. */
export function privateUser(u: GhUser, api: string, createdAt: string): Json {
  return {
    ...simpleUser(u, api),
    user_view_type: 'private',
    name: u.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: createdAt,
    updated_at: createdAt,
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

const reactions = (url: string): Json => ({
  url: `${url}/reactions`,
  total_count: 0,
  '+1': 0,
  '-1': 0,
  laugh: 0,
  confused: 0,
  heart: 0,
  hooray: 0,
  eyes: 0,
  rocket: 0,
});

/** Stable ids for label names (labels have no state of their own here). */
function labelId(name: string): number {
  let h = 7;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 1_000_000_007;
  return h;
}

export function issueJson(repo: GhRepo, i: GhIssue, api: string): Json {
  const repoUrl = `${api}/repos/${repo.owner}/${repo.name}`;
  const url = `${repoUrl}/issues/${i.number}`;
  return {
    id: i.id,
    node_id: `I_${i.id}`,
    url,
    repository_url: repoUrl,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    timeline_url: `${url}/timeline`,
    html_url: `https://github.com/${repo.owner}/${repo.name}/issues/${i.number}`,
    number: i.number,
    state: i.state,
    state_reason: i.state === 'closed' ? 'completed' : null,
    title: i.title,
    body: i.body,
    user: simpleUser(i.user, api),
    labels: i.labels.map((name) => ({
      id: labelId(name),
      node_id: `LA_${labelId(name)}`,
      url: `${repoUrl}/labels/${encodeURIComponent(name)}`,
      name,
      color: 'ededed',
      default: false,
      description: null,
    })),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: i.comments.length,
    closed_at: i.closed_at,
    created_at: i.created_at,
    updated_at: i.updated_at,
    author_association: i.author_association,
    reactions: reactions(url),
  };
}

export function commentJson(state: GithubState, repo: GhRepo, c: GhComment, api: string): Json {
  const url = `${api}/repos/${repo.owner}/${repo.name}/issues/comments/${c.id}`;
  return {
    id: c.id,
    node_id: `IC_${c.id}`,
    url,
    body: c.body,
    user: simpleUser(c.user, api),
    html_url: `https://github.com/${repo.owner}/${repo.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${api}/repos/${repo.owner}/${repo.name}/issues/${c.issueNumber}`,
    created_at: c.created_at,
    updated_at: c.updated_at,
    author_association: state.association(repo, c.user.login),
    performed_via_github_app: null,
    reactions: reactions(url),
  };
}

/** GET /repos/{owner}/{repo}: the spec's own example, re-pointed at this repository. */
export function repoJson(example: Json, state: GithubState, repo: GhRepo, viewer: string, api: string): Json {
  const text = JSON.stringify(example)
    .replaceAll('octocat/Hello-World', `${repo.owner}/${repo.name}`)
    .replaceAll('https://api.github.com', api);
  const { parent: _p, source: _s, organization: _o, template_repository: _t, ...rest } = JSON.parse(text) as Json;
  const p = state.permission(repo, viewer);
  const rank = ['none', 'read', 'triage', 'write', 'maintain', 'admin'].indexOf(p);
  return {
    ...rest,
    id: repo.id,
    node_id: `R_${repo.id}`,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: simpleUser(state.user(repo.owner, 'Organization'), api),
    private: repo.private,
    visibility: repo.private ? 'private' : 'public',
    fork: false,
    language: null,
    open_issues_count: [...repo.issues.values()].filter((i) => i.state === 'open').length,
    permissions: { pull: rank >= 1, triage: rank >= 2, push: rank >= 3, maintain: rank >= 4, admin: rank >= 5 },
  };
}

const LEGACY_PERMISSION: Partial<Record<Permission, string>> = { maintain: 'write', triage: 'read' };

/** The legacy permission GitHub reports beside the role: maintain counts as write, triage as read. */
export function permissionJson(p: Permission, u: GhUser, api: string): Json {
  const legacy = LEGACY_PERMISSION[p] ?? p;
  return { permission: legacy, role_name: p, user: { ...simpleUser(u, api), role_name: p } };
}
