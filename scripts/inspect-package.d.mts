// Types for inspect-package.mjs (plain JavaScript, run by node), for its test.
export const TARGETS: string[];
export interface NativeKind {
  os: 'linux' | 'win32' | 'darwin';
  archs: string[];
}
export interface InspectResult {
  target: string;
  problems: string[];
  deferred: string[];
  notes: string[];
  sizes: { asar: number; unpacked: number; total: number };
}
export const NOT_LOADED: Record<string, string>;
export function onnxruntimeShips(target: string): boolean;
export function nativeKind(bytes: Buffer): NativeKind | null;
export function moduleAbi(file: string): number | null;
export function electronAbiOf(version: string): number | null;
export function asarEntries(archive: string): Map<string, { size: number; unpacked: boolean }>;
export function filesUnder(dir: string): Map<string, number>;
export function resourcesOf(appDir: string): string;
export function runtimePackages(projectDir: string, target: string): string[];
export function inspectApp(o: { appDir: string; target: string; projectDir?: string; strict?: boolean; electronAbi?: number | null; host?: string }): InspectResult;
export function linkTree(src: string, dst: string): void;
export function fakeElectron(dir: string, os: string, version: string): string;
export function formatResult(r: InspectResult): string;
