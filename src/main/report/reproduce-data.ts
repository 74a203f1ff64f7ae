/**
 * The inputs `stats speat` and `stats fdi` need to recompute the report's numbers, as
 * report attachments: each SpEAT comparison's per-stimulus associations s(w, A, B) (numbers,
 * and speaker pseudonyms when speakers were the unit; the embeddings and the audio stay with
 * the auditor) and each FDI grouping's scored trials (group, label, score and, where the
 * trials name speakers, the speakers' pseudonyms S01, S02, …: no trial or speaker ids).
 * reproduce.ts names them in its steps.
 */
import type { AuditResults, FdiGrouping, SpeatResult } from '../../shared/results';
import type { ReportTable } from './tables';

/** A plain file name from ids that may hold any character (extract.ts accepts only [A-Za-z0-9._-]). */
export function slug(text: string): string {
  const s = text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[^A-Za-z0-9]+/, '');
  return s.slice(0, 60) || 'x';
}

/** One file per SpEAT result; the index keeps names unique when two ids slug alike. */
export function speatAssociationsName(r: SpeatResult, index: number): string {
  return `speat-associations-${index + 1}-${slug(r.testId)}-${slug(r.modelId)}.json`;
}

export function speatAssociationFiles(results: AuditResults): { name: string; data: Buffer; result: SpeatResult }[] {
  return (results.speat?.results ?? []).map((r, i) => ({
    name: speatAssociationsName(r, i),
    // The shape `stats speat --associations` reads: X and Y, one association per stimulus, and
    // (when the audit tested by speaker) each stimulus's speaker as a pseudonym.
    data: Buffer.from(
      `${JSON.stringify({
        testId: r.testId,
        modelId: r.modelId,
        temporal: r.temporal,
        layer: r.layer,
        X: r.associations.X,
        Y: r.associations.Y,
        ...(r.associations.speakersX && r.associations.speakersY ? { speakersX: r.associations.speakersX, speakersY: r.associations.speakersY } : {}),
      })}\n`,
      'utf8',
    ),
    result: r,
  }));
}

export function fdiTrialsId(g: FdiGrouping, index: number): string {
  return `fdi-trials-${index + 1}-${slug(g.groupBy.join('+'))}`;
}

/** The scored trials of each FDI grouping that carries them: `stats fdi --input` reads these columns. */
export function fdiTrialTables(results: AuditResults): ReportTable[] {
  return (results.fdi?.groupings ?? []).flatMap((g, i) =>
    g.trials && g.trials.length > 0
      ? [{
          id: fdiTrialsId(g, i),
          section: 'fdi' as const,
          title: `Scored trials, grouped by ${g.groupBy.join(' × ')} (label 1 genuine, 0 impostor)`,
          columns: [
            { title: 'group', format: 'text' as const, width: 1 },
            { title: 'label', format: 'int' as const, width: 1 },
            { title: 'score', format: 'num' as const, width: 1 },
            // Speakers' pseudonyms: `stats fdi` then resamples and shuffles speakers, as the audit did.
            ...(g.trials.every((t) => t.speakers) ? [{ title: 'enrol_speaker', format: 'text' as const, width: 1 }, { title: 'test_speaker', format: 'text' as const, width: 1 }] : []),
          ],
          rows: g.trials.map((t) => (g.trials!.every((x) => x.speakers) ? [t.group, t.label, t.score, t.speakers![0], t.speakers![1]] : [t.group, t.label, t.score])),
        }]
      : [],
  );
}
