import type { DatasetRole } from '../../../shared/api/datasets';

/** The sections a dataset serves in words: "SpEAT groups, WER". */
export function servesText(roles: readonly DatasetRole[]): string {
  const parts = roles.map((r) => (r === 'target' ? 'the groups compared in SpEAT' : r === 'attribute' ? 'the pleasant and unpleasant speech of SpEAT and SER' : r === 'asr' ? 'WER' : 'FDI'));
  return parts.join('; ');
}
