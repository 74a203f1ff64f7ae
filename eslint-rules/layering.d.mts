// Types of layering.mjs for the TypeScript tests that read its table.
import type { ESLint } from 'eslint';

export interface Room {
  folders?: string[];
  files?: string[];
  may: string[];
  why: string;
}
export declare const ROOMS: Record<string, Room>;
export declare const PENDING: { file: string; imports: string; why: string }[];
export declare function roomOf(path: string): string | undefined;
export declare function allowedFrom(room: string): Set<string>;
declare const plugin: ESLint.Plugin;
export default plugin;
