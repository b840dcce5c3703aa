// Types of scripts/peer-tests.mjs, for test/peer-tests.test.ts.
export type Peer = 'loopy' | 'reikna' | 'flaggems';
export interface Snapshot {
  peers: Record<Peer, { repo: string; commit: string; files: Record<string, string[]> }>;
}
export interface PortFile {
  file: string;
  rel: string;
  titles: string[];
}
export interface Where {
  file: string;
  title: string;
}
export interface NotPortedEntry {
  peer: Peer;
  file: string | null;
  name: string | null;
  line: number;
}
export type Status = 'ported' | 'listed' | 'missing';
export interface Coverage {
  peers: Record<
    Peer,
    { repo: string; commit: string; files: Record<string, { name: string; status: Status; where: Where[] }[]> }
  >;
  stale: NotPortedEntry[];
  listedAndPorted: { peer: Peer; file: string; name: string; where: Where[] }[];
}
export const SNAPSHOT: string;
export const NOT_PORTED: string;
export const COVERAGE: string;
export function pythonTestNames(source: string): string[];
export function loadSnapshot(file?: string): Snapshot;
export function testTitles(source: string): string[];
export function readPorts(dir?: string): Record<Peer, PortFile[]>;
export function portsOf(ports: PortFile[], peerFile: string, name: string, unique: boolean): Where[];
export function parseNotPorted(text: string): NotPortedEntry[];
export function coverage(snapshot: Snapshot, ports?: Record<Peer, PortFile[]>, notPorted?: NotPortedEntry[]): Coverage;
export function totals(cov: Coverage, peer?: Peer): { ported: number; listed: number; missing: number };
export function renderReport(cov: Coverage): string;
export function recordedMissing(text?: string): number;
