import { Fragment, type JSX, useMemo } from 'react';
import { fmtDeltaPp, fmtRelative } from '../../../shared/format';
import type { AuditResults, WerComparison, WerGroupResult, WerSection } from '../../../shared/results';
import { werAbove100Text, werPowerText } from '../../../shared/verdicts';
import { werReferenceSentence } from '../../../shared/reference-group';
import { WER_TEST_SHORT, WER_VERDICT_MIN_SPEAKERS, werOverallStatement, werPrimaryStatement, werRateRatio, werVerdicts, type WerVerdict } from '../../../shared/wer-verdict';
import { Term } from '../components/Term';
import { languageName } from '../lib/language';
import { ChartFigure } from './ChartFigure';
import { werDashboardChart } from './charts/wer';
import { Ci, Num } from './format';

const NORMALIZE: Record<WerSection['config']['normalize'], string> = {
  basic: 'basic normalisation (case, punctuation)',
  none: 'no text normalisation',
  english: 'English normalisation',
  'whisper-english': "Whisper's English normalisation (as the Open ASR Leaderboard)",
  'whisper-basic': "Whisper's basic normalisation",
};

export function WerPanel({ results, wer }: { results: AuditResults; wer: WerSection }): JSX.Element {
  const chart = useMemo(() => werDashboardChart(results), [results]);
  const groups = Object.keys(wer.groups).sort((a, b) => a.localeCompare(b, 'en'));
  const ref = wer.config.referenceGroup;
  const warned = groups.filter((g) => wer.groups[g]!.warnings.length > 0 || wer.groups[g]!.speakers < 50 || wer.groups[g]!.utterances < 500);
  const verdicts = werVerdicts(wer);
  // Every pair: each row names its two groups.
  const rowName = (c: WerComparison) => (ref !== null ? c.group : `${c.group} vs ${c.referenceGroup}`);
  const comparedTitle = ref !== null ? `Each group compared with ${ref}` : 'Every pair of groups compared';
  return (
    <div className="dash-section">
      <p className="dash-intro">
        This tab shows <strong>behaviour of a downstream system</strong>: how often the speech recogniser gets words wrong for each group
        ({wer.config.groupBy.join(' × ')}), {ref !== null ? (
          <>
            compared with the reference group <strong>{ref}</strong>
          </>
        ) : (
          'every pair of groups compared'
        )}
        . Transcripts compared with{' '}
        {NORMALIZE[wer.config.normalize]}; confidence intervals by resampling {wer.config.by === 'speaker' ? 'speakers' : 'utterances'} (<Term k="bootstrap">bootstrap</Term>).{' '}
        {recogniserText(wer)}
      </p>
      <p className="muted small" data-testid="wer-reference">
        {werReferenceSentence(wer.config)}
      </p>
      <p className="dash-headline" data-testid="wer-overall">
        {werOverallStatement(wer).text}
      </p>
      <p className="muted small" data-testid="wer-primary">
        {werPrimaryStatement(wer)}
      </p>
      {warned.length > 0 ? (
        <div className="dash-warnings" data-testid="wer-group-warnings">
          <p>
            <strong>Small groups:</strong> {warned.join(', ')} {warned.length === 1 ? 'has' : 'have'} fewer than 50 speakers or 500 utterances. Differences
            involving {warned.length === 1 ? 'it' : 'them'} are indicative only: a few speakers can move the error rate a lot.
          </p>
          {groups.some((g) => wer.groups[g]!.warnings.length > 0) ? (
            <ul>
              {groups.flatMap((g) => wer.groups[g]!.warnings.map((w, i) => <li key={`${g}-${i}`}>{g}: {w}</li>))}
            </ul>
          ) : null}
        </div>
      ) : null}

      {chart ? <ChartFigure spec={chart} tableSummary="The numbers behind this chart are in the table “Error rates per group” below" /> : null}

      <h3>Error rates per group</h3>
      <div className="dash-table-wrap" tabIndex={0} role="region" aria-label="Error rates per group">
        <table className="dash-table" data-testid="wer-table">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col" className="num">
                <Term k="wer">WER</Term>
              </th>
              <th scope="col" className="num">
                95% <Term k="ci">CI</Term>
              </th>
              <th scope="col" className="num">
                <Term k="cer">CER</Term>
              </th>
              <th scope="col" className="num">
                <Term k="mer">MER</Term>
              </th>
              <th scope="col" className="num">
                <Term k="wil">WIL</Term>
              </th>
              <th scope="col" className="num">Utterances</th>
              <th scope="col" className="num">Speakers</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => {
              const r = wer.groups[g]!;
              return (
                <tr key={g}>
                  <th scope="row">
                    {g}
                    {g === ref ? <span className="muted"> (reference)</span> : null}
                  </th>
                  <td className="num">
                    <Num value={r.wer} kind="percent" />
                  </td>
                  <td className="num">
                    <Ci ci={r.ci95} percent />
                  </td>
                  <td className="num">
                    <Num value={r.cer} kind="percent" />
                  </td>
                  <td className="num">
                    <Num value={r.mer} kind="percent" />
                  </td>
                  <td className="num">
                    <Num value={r.wil} kind="percent" />
                  </td>
                  <td className="num">{r.utterances.toLocaleString('en')}</td>
                  <td className="num">{r.speakers.toLocaleString('en')}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        WER: word error rate; CER: character error rate; MER: match error rate; WIL: word information lost. All are shares of errors: lower is better.
      </p>

      {wer.comparisons.length > 0 ? (
        <>
          <h3>{comparedTitle}</h3>
          <div className="dash-table-wrap" tabIndex={0} role="region" aria-label={comparedTitle}>
            <table className="dash-table" data-testid="wer-comparisons">
              <thead>
                <tr>
                  <th scope="col">{ref !== null ? 'Group' : 'Groups'}</th>
                  <th scope="col" className="num">
                    <Term k="wer">WER</Term> difference
                  </th>
                  <th scope="col" className="num">Relative difference</th>
                  <th scope="col" className="num">
                    <Term k="rateRatio">Rate ratio</Term> (95% CI)
                  </th>
                  <th scope="col">
                    <Term k="primary">Primary test</Term>
                  </th>
                  <th scope="col" className="num">
                    <Term k="adjusted">p, adjusted</Term> (Holm)
                  </th>
                  <th scope="col">Verdict</th>
                </tr>
              </thead>
              <tbody>
                {wer.comparisons.map((c, i) => {
                  const v = verdicts[i]!;
                  const rr = werRateRatio(c);
                  return (
                    <Fragment key={`${c.group}|${c.referenceGroup}`}>
                      <tr className="dash-row-main">
                        <th scope="row">{rowName(c)}</th>
                        <td className="num" title={String(c.absoluteDelta)}>
                          {fmtDeltaPp(c.absoluteDelta)}
                        </td>
                        <td className="num" title={c.relativeDelta === null ? undefined : String(c.relativeDelta)}>
                          {fmtRelative(c.relativeDelta)}
                        </td>
                        <td className="num" title={`from the ${rr.from}`}>
                          <Num value={rr.value} />
                          {rr.ci95 ? (
                            <>
                              {' '}
                              <Ci ci={rr.ci95} />
                            </>
                          ) : null}
                        </td>
                        <td>{v.test ? WER_TEST_SHORT[v.test] : `none (< ${WER_VERDICT_MIN_SPEAKERS} speakers)`}</td>
                        <td className="num">
                          <Num value={v.pAdjusted} kind="p" />
                        </td>
                        <td>{v.label}</td>
                      </tr>
                      <tr className="dash-row-plain">
                        <td colSpan={7} className="dash-plain" data-testid={ref !== null ? `wer-verdict-${c.group}` : `wer-verdict-${c.group}-vs-${c.referenceGroup}`}>
                          {werSentence(c.group, c.referenceGroup, c.absoluteDelta, rr.value, v, c, wer.groups[c.group], ref !== null)}
                        </td>
                      </tr>
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p className="muted small">
            {ref !== null ? `WER difference in percentage points: the group's word error rate minus ${ref}'s.` : "WER difference in percentage points: the first group's word error rate minus the second's."}
          </p>
          <h4>Secondary tests, for transparency</h4>
          <div className="dash-table-wrap" tabIndex={0} role="region" aria-label="Secondary tests of each comparison">
            <table className="dash-table" data-testid="wer-secondary">
              <thead>
                <tr>
                  <th scope="col">{ref !== null ? 'Group' : 'Groups'}</th>
                  <th scope="col" className="num">Mixed model p</th>
                  <th scope="col" className="num">Poisson regression p</th>
                  <th scope="col" className="num">{wer.config.by === 'speaker' ? 'Speaker' : 'Recording'} shuffle p</th>
                </tr>
              </thead>
              <tbody>
                {wer.comparisons.map((c, i) => {
                  const v = verdicts[i]!;
                  const permTest = wer.config.by === 'speaker' ? 'speaker-permutation' : 'utterance-permutation';
                  return (
                    <tr key={`${c.group}|${c.referenceGroup}`}>
                      <th scope="row">{rowName(c)}</th>
                      <td className="num">{v.test === 'mixed-poisson' ? 'primary (above)' : <Num value={c.mixed?.pValue ?? null} kind="p" />}</td>
                      <td className="num">
                        <Num value={c.poisson.pValue} kind="p" />
                      </td>
                      <td className="num">{v.test === permTest ? 'primary (above)' : <Num value={c.permutationPValue} kind="p" />}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p className="muted small">
            Secondary tests are shown for transparency and are never the basis of a verdict: the Poisson regression treats every word as independent, and a
            permutation test at the utterance level treats every utterance as independent; with repeated speakers both call differences “unlikely to be chance” too
            readily.
          </p>
        </>
      ) : null}

      {wer.calibration && Object.keys(wer.calibration).length > 0 ? (
        <>
          <h3>Does the recogniser know when it is wrong?</h3>
          <p className="muted small">
            Confidence calibration per group: the recogniser's average confidence next to how often it was actually right (1 − the utterance's word error rate). ECE is the
            average gap between the two over ten confidence bands: 0 means its confidence can be trusted equally for every group; a larger ECE for one group means its
            confidence misleads more for that group.
          </p>
          <div className="dash-table-wrap" tabIndex={0} role="region" aria-label="Confidence calibration per group">
            <table className="dash-table" data-testid="wer-calibration">
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col" className="num">Mean confidence</th>
                  <th scope="col" className="num">Mean accuracy</th>
                  <th scope="col" className="num">
                    <Term k="ece">ECE</Term>
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(wer.calibration).map(([g, c]) => (
                  <tr key={g}>
                    <th scope="row">{g}</th>
                    <td className="num">
                      <Num value={c.meanConfidence} />
                    </td>
                    <td className="num">
                      <Num value={c.accuracy} />
                    </td>
                    <td className="num">
                      <Num value={c.ece} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </div>
  );
}

/** Where the recogniser output came from, and for Whisper the language it listened for and what it wrote. */
function recogniserText(wer: WerSection): string {
  const c = wer.config;
  if (c.hypotheses !== 'model') return c.asrModel ? `The recogniser output came with the recordings; it was written by ${c.asrModel}.` : 'The recogniser output came with the recordings; the plan does not name the recogniser that wrote it.';
  if (!c.asrModel) return 'The recordings were transcribed on this computer.';
  if (!c.asrLanguage) return `The recordings were transcribed on this computer by ${c.asrModel}.`;
  const language = c.asrLanguage === 'auto' ? 'the language it detected in each recording' : languageName(c.asrLanguage);
  return `The recordings were transcribed on this computer by ${c.asrModel}, listening for ${language}${c.asrTask === 'translate' ? ' and writing an English translation' : ''}.`;
}

function werSentence(group: string, ref: string, delta: number, ratio: number, v: WerVerdict, c: WerComparison, g: WerGroupResult | undefined, isReference: boolean): string {
  const verdict = `this ${v.unlikely ? 'is ' : ''}${v.phrase}${werPowerText(c, v.unlikely)}${werAbove100Text(group, g) ? `.${werAbove100Text(group, g).replace(/\.$/, '')}` : ''}`;
  if (delta === 0) return `${group} and ${ref} have the same error rate; ${verdict}.`;
  const times = Number.isFinite(ratio) && ratio > 0 ? ` (${ratio.toFixed(2)} times ${isReference ? "the reference group's" : `${ref}'s`} errors per word)` : '';
  return `The recogniser makes ${delta > 0 ? 'more' : 'fewer'} errors for ${group} than for ${ref}${times}; ${verdict}.`;
}
