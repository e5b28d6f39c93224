import * as awk from './awk.js';
import * as curl from './curl.js';
import * as jq from './jq.js';
import * as kubectl from './kubectl.js';
import * as text from './text-filters.js';
import type { GtfoEntry, ProgramShape } from './types.js';

export type { Category, GtfoEntry, ProgramShape } from './types.js';

export const CORPUS: GtfoEntry[] = [
  ...awk.entries,
  ...jq.entries,
  ...text.entries,
  ...kubectl.entries,
  ...curl.entries,
];

export const SHAPES: Record<string, ProgramShape> = Object.fromEntries(
  [awk.shape, jq.shape, kubectl.shape, curl.shape, ...text.shapes].map((s) => [s.program, s]),
);
for (const name of ['gawk', 'mawk']) SHAPES[name] = { ...awk.shape, program: name };
for (const name of ['egrep', 'fgrep']) SHAPES[name] = { ...SHAPES.grep!, program: name };

/** Everyday lines the policy runs without asking: the disguises must leave them allowed (else they change meaning). */
export const ALLOWED: string[] = [
  'kubectl get pods -n prod -o json',
  'kubectl logs deploy/api --tail 200',
  "kubectl get pods -o jsonpath='{.items[*].metadata.name}'",
  'kubectl get pods -o wide --no-headers',
  "awk '{print $1, $3}'",
  "awk -F: '$3 > 100 {print $1}'",
  "awk '/err|warn/ {n++} END {print n+0}'",
  'jq -r \'.items[] | "\\(.metadata.name) \\(.status.phase)"\'',
  "jq '.spec.containers[].env'",
  'jq -c .data',
  'grep -i -e error -e warn',
  'grep -v Running',
  'head -n 5',
  'tail -n 20',
  'sort -k 2 -n -r',
  'uniq -c',
  'wc -l',
  "cut -d ' ' -f 1",
  "tr -s ' '",
  'curl -s http://prometheus:9090/api/v1/alerts',
];
