import type { LoopState } from '../records/loop-state.js';
import type { RunbookUse } from '../records/runbook-use.js';
import { FETCH_RUNBOOK } from './runbook.js';

/**
 * The runbooks an investigation was offered (listed in its prompt) and those it read with fetch_runbook
 * (by id or URL, successfully), each once, offered first.
 */
export function runbooksUsed(state: Pick<LoopState, 'runbooks' | 'toolCalls'>): RunbookUse[] {
  const out: RunbookUse[] = [...(state.runbooks ?? [])];
  for (const call of state.toolCalls) {
    if (call.tool !== FETCH_RUNBOOK || call.status !== 'success') continue;
    const id = typeof call.params.id === 'string' ? call.params.id : call.params.url;
    if (typeof id !== 'string' || out.some((u) => u.id === id && u.how === 'fetched')) continue;
    const offered = out.find((u) => u.id === id);
    out.push({ id, title: offered?.title ?? id, how: 'fetched' });
  }
  return out;
}
