import type { Verdict } from '../records/feedback.js';

/** One answered investigation, as the quality figures count it. */
export interface QualityRow {
  id: string;
  source: string;
  /** The alert's name (its `alertname` label), else the title. */
  alert: string;
  /** The model its cost was counted for; "unknown" when none was. */
  model: string;
  createdAt: string;
  verdict: Verdict | null;
  /** Cost of the investigation's run, null when unknown (no price, or not counted). */
  cost: number | null;
  currency: string | null;
  resolvedAfterSeconds: number | null;
  /** Whether the issue resolved, and whether it fired again within 7 days after. */
  resolved: boolean;
  recurred: boolean;
  /** An earlier confirmed RCA written back without running the model (memory: `reused: true` on the record). */
  reused: boolean;
}

/** The figures of a set of answered investigations (docs/quality.md defines each). */
export interface QualityFigures {
  investigations: number;
  rated: number;
  correct: number;
  partly: number;
  wrong: number;
  unrated: number;
  /** (correct + partly / 2) / rated; null when none is rated. */
  accuracy: number | null;
  /** Total cost of the rated investigations / correct ones; null when none is correct or no rated cost is known. */
  costPerCorrect: number | null;
  medianSecondsToResolve: number | null;
  /** Resolved ones that fired again within 7 days / resolved ones; null when none resolved. */
  recurrenceRate: number | null;
  reused: number;
}

/** Counts kept while rows stream in; `figures()` turns them into QualityFigures. */
export class FiguresTally {
  private n = 0;
  private readonly verdicts = { correct: 0, partly: 0, wrong: 0 };
  private ratedCost = 0;
  private ratedCostKnown = false;
  private readonly resolveSeconds: number[] = [];
  private resolved = 0;
  private recurred = 0;
  private reused = 0;

  add(r: QualityRow): void {
    this.n += 1;
    if (r.verdict) {
      this.verdicts[r.verdict] += 1;
      if (r.cost !== null) {
        this.ratedCost += r.cost;
        this.ratedCostKnown = true;
      }
    }
    if (r.resolvedAfterSeconds !== null) this.resolveSeconds.push(r.resolvedAfterSeconds);
    if (r.resolved) this.resolved += 1;
    if (r.recurred) this.recurred += 1;
    if (r.reused) this.reused += 1;
  }

  figures(): QualityFigures {
    const { correct, partly, wrong } = this.verdicts;
    const rated = correct + partly + wrong;
    return {
      investigations: this.n,
      rated,
      correct,
      partly,
      wrong,
      unrated: this.n - rated,
      accuracy: rated ? round((correct + partly / 2) / rated) : null,
      costPerCorrect: correct && this.ratedCostKnown ? round(this.ratedCost / correct) : null,
      medianSecondsToResolve: median(this.resolveSeconds),
      recurrenceRate: this.resolved ? round(this.recurred / this.resolved) : null,
      reused: this.reused,
    };
  }
}

/** Tallies keyed by a name (a source, an alert, a model). */
export class KeyedTallies {
  private readonly tallies = new Map<string, FiguresTally>();

  add(key: string, r: QualityRow): void {
    let t = this.tallies.get(key);
    if (!t) this.tallies.set(key, (t = new FiguresTally()));
    t.add(r);
  }

  /** Figures by key, keys sorted; a Map's entries so a vendor's word never reaches Object.prototype. */
  figures(): Record<string, QualityFigures> {
    const out: Record<string, QualityFigures> = Object.create(null) as Record<string, QualityFigures>;
    for (const key of [...this.tallies.keys()].sort()) out[key] = this.tallies.get(key)!.figures();
    return out;
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Four decimals: enough for a rate or a cost, without binary noise in the JSON. */
function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
