import type { ApiOptions } from './api-client.js';
import { callApi } from './api-client.js';
import { renderMarkdown, terminalSafe, type Style } from './terminal-markdown.js';

interface Shown {
  id: string;
  title: string;
  source: string;
  severity?: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  rca: string | null;
  error: string | null;
  toolCalls: Array<{
    name: string;
    status: string;
    durationMs: number;
    params: Record<string, unknown>;
    error?: string;
    decidedBy?: { via: string; user: string; name?: string };
  }>;
  writeBacks: Array<{ target: string; status: string; url: string | null; error: string | null }>;
  approvals: {
    expiresAt: string;
    pending: Array<{ toolCallId: string; tool: string; params: Record<string, unknown>; reason: string }>;
  } | null;
  conversation: Array<{ question: string; answer: string | null; status: string }>;
  /** Absent from a service older than the remediation record. */
  remediation?: Remediation[];
  issue?: { url?: string | null } | null;
}

interface Remediation {
  toolCallId: string;
  tool: string;
  params: Record<string, unknown>;
  workload: { kind: string; namespace: string; name: string };
  approvedBy?: { via: string; user: string; name?: string };
  appliedAt: string;
  result: string;
  verification?: { status: string; checkedAt: string; evidence: string };
}

/** `lestrade show <id>`: the investigation for a terminal (or its JSON). */
export async function showCommand(
  api: ApiOptions,
  id: string,
  json: boolean,
  style: Style,
  out: NodeJS.WritableStream,
): Promise<void> {
  const { body } = await callApi<Shown>(api, `/api/investigations/${encodeURIComponent(id)}`);
  out.write(json ? `${JSON.stringify(body, null, 2)}\n` : renderInvestigation(body, style));
}

export function renderInvestigation(inv: Shown, style: Style): string {
  const safe = (s: unknown) => terminalSafe(typeof s === 'string' ? s : JSON.stringify(s));
  const parts = [
    `${style.bold(safe(inv.title))}\n${style.dim(`${inv.id} · ${inv.source} · ${inv.severity ?? 'unknown'} · ${inv.status} · created ${inv.createdAt}${inv.finishedAt ? ` · finished ${inv.finishedAt}` : ''}`)}\n`,
  ];
  if (inv.issue?.url) parts.push(`${style.dim('issue:')} ${safe(inv.issue.url)}\n`);
  if (inv.error) parts.push(`${style.bold('Error:')} ${safe(inv.error)}\n`);
  if (inv.approvals?.pending.length) parts.push(pendingSection(inv, style, safe));
  if (inv.rca) parts.push(renderMarkdown(inv.rca, style));
  for (const c of inv.conversation) {
    parts.push(
      `${style.bold('Follow-up:')} ${safe(c.question)} ${style.dim(`(${c.status})`)}\n${c.answer ? renderMarkdown(c.answer, style) : ''}`,
    );
  }
  if (inv.toolCalls.length) {
    parts.push(
      `${style.bold('Tool calls')}\n${inv.toolCalls
        .map((t) => {
          const by = t.decidedBy
            ? ` · ${t.status === 'denied' ? 'denied' : 'approved'} by ${safe(t.decidedBy.name ?? t.decidedBy.user)} via ${t.decidedBy.via}`
            : '';
          return `  ${t.name} ${safe(t.params)} → ${t.status}${t.error ? ` (${safe(t.error)})` : ''} ${style.dim(`${t.durationMs} ms${by}`)}`;
        })
        .join('\n')}\n`,
    );
  }
  if (inv.remediation?.length) parts.push(remediationSection(inv.remediation, style, safe));
  if (inv.writeBacks.length) {
    parts.push(
      `${style.bold('Write-backs')}\n${inv.writeBacks.map((w) => `  ${safe(w.target)}: ${w.status}${w.url ? ` ${safe(w.url)}` : ''}${w.error ? ` (${safe(w.error)})` : ''}`).join('\n')}\n`,
    );
  }
  return parts.join('\n');
}

function pendingSection(inv: Shown, style: Style, safe: (s: unknown) => string): string {
  const lines = inv.approvals!.pending.map(
    (p) => `  ${style.bold(p.toolCallId)}  ${p.tool} ${safe(p.params)}\n    why: ${safe(p.reason)}`,
  );
  const hint = `decide with: lestrade approve ${inv.id} <call> | lestrade deny ${inv.id} <call> --reason "..." (expires ${inv.approvals!.expiresAt})`;
  return `${style.bold('Awaiting approval')}\n${lines.join('\n')}\n  ${style.dim(hint)}\n`;
}

/** The approved remediations that ran: what, on which workload, who approved it, the result and its verification. */
function remediationSection(entries: Remediation[], style: Style, safe: (s: unknown) => string): string {
  const lines = entries.map((r) => {
    const by = r.approvedBy
      ? `approved by ${safe(r.approvedBy.name ?? r.approvedBy.user)} via ${r.approvedBy.via}`
      : 'approver unknown';
    const w = r.workload;
    const head = `  ${r.tool} ${safe(w.kind)} ${safe(w.namespace)}/${safe(w.name)} → ${safe(r.result)} ${style.dim(`${r.appliedAt} · ${by}`)}`;
    const v = r.verification;
    return v ? `${head}\n    verification: ${safe(v.status)} ${style.dim(v.checkedAt)} ${safe(v.evidence)}` : head;
  });
  return `${style.bold('Remediation')}\n${lines.join('\n')}\n`;
}
