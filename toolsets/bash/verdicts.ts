import type { CallVerdict } from '../../src/tools/types.js';
import { parseOptions, type OptionSpec, type ParsedOptions } from './options.js';

export const allow: CallVerdict = { decision: 'allow' };
export const deny = (reason: string): CallVerdict => ({ decision: 'deny', reason });
export const ask = (reason: string): CallVerdict => ({ decision: 'ask', reason });

/** Refusals first, then anything a human must see (unknown options, file arguments), else allowed. */
export function checkOptions(
  name: string,
  p: ParsedOptions,
  maxOperands: number,
  operandsWhy = 'reads files on the Lestrade host',
): CallVerdict {
  if (p.denied.length) return deny(`${name} ${p.denied[0]}`);
  if (p.unknown.length) return ask(`${name}: option ${p.unknown.join(', ')} is not on the read-only list`);
  if (p.ask.length) return ask(`${name} ${p.ask[0]}`);
  if (p.operands.length > maxOperands)
    return ask(`${name} with ${p.operands.length - maxOperands} more argument(s) ${operandsWhy}`);
  return allow;
}

export function optionsRule(name: string, spec: OptionSpec, maxOperands: number) {
  return (args: string[]): CallVerdict => checkOptions(name, parseOptions(args, spec), maxOperands);
}

/** The strictest of several verdicts: any refusal wins, then any question. */
export function strictest(verdicts: CallVerdict[]): CallVerdict {
  const denied = verdicts.find((v) => v.decision === 'deny');
  if (denied) return denied;
  const asks = verdicts.filter((v): v is Extract<CallVerdict, { decision: 'ask' }> => v.decision === 'ask');
  return asks.length ? ask(asks.map((a) => a.reason).join('; ')) : allow;
}
