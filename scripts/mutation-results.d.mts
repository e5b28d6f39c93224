// Types of scripts/mutation-results.mjs, for its unit tests (tests/unit/scripts/mutation-results.test.ts).
export interface Position {
  line: number;
  column: number;
}
export interface Location {
  start: Position;
  end: Position;
}
export interface CurrentMutant {
  fileName: string;
  id: string;
  mutatorName: string;
  replacement: string;
  location: Location;
  status?: string;
}
export interface RecordedMutant {
  id: string;
  mutatorName: string;
  replacement: string;
  status: string;
  location: Location;
  killedBy?: string[];
  coveredBy?: string[];
}
export interface IncrementalReport {
  files: Record<string, { source: string; mutants: RecordedMutant[]; language?: string }>;
  testFiles?: Record<string, { source?: string; tests: Array<{ id: string; name: string }> }>;
}
export interface Tally {
  mutants: number;
  Killed: number;
  Timeout: number;
  Survived: number;
  NoCoverage: number;
  Missing: number;
  score: number;
}
export const SCORED: string[];
export function instrument(
  files: Array<{ name: string; content: string }>,
  mutator?: { excludedMutations?: string[] },
): Promise<CurrentMutant[]>;
export function relocate<T extends { location: Location }>(oldSource: string, newSource: string, items: T[]): T[];
export function renamed(report: IncrementalReport, renames?: Map<string, string>): IncrementalReport;
export function match(
  current: Map<string, { source: string; mutants: CurrentMutant[] }>,
  report: IncrementalReport,
  testFileExists: (testFile: string) => boolean,
): Map<string, Array<CurrentMutant & { status: string }>>;
export function tally(mutants: Array<{ status: string }>): Tally;
export function parseNameStatus(text: string): Map<string, string>;
export function globRegExps(globs: string[]): RegExp[];
