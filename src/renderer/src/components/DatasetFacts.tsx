import { type JSX, useCallback, useEffect, useRef, useState } from 'react';
import type { DatasetFacts as Facts } from '../../../shared/api/datasets';
import { asUiError, call, type UiError } from '../api';
import { ErrorNote } from './ErrorNote';
import { Num } from './Num';
import { WindowedList } from './WindowedList';
import { ROLE_PLAIN } from '../../../shared/roles';
import { decisionText, spellingsText } from '../../../shared/label-text';

/** How a row of the validation report is treated: left out by validation, a warning, a note, or excluded by the auditor. */
export function rowKind(r: { status: string; excludedByUser: boolean; issues: { severity: string }[] }): 'left-out' | 'warning' | 'note' | 'excluded' {
  if (r.excludedByUser) return 'excluded';
  if (r.status === 'excluded' || r.issues.some((i) => i.severity === 'error')) return 'left-out';
  if (r.status === 'warning' || r.issues.some((i) => i.severity === 'warning')) return 'warning';
  return 'note';
}

const KIND: Record<ReturnType<typeof rowKind>, { text: string; badge: string }> = {
  'left-out': { text: 'left out', badge: 'badge-error' },
  warning: { text: 'warning', badge: 'badge-warn' },
  note: { text: 'note', badge: 'badge-muted' },
  excluded: { text: 'excluded by you', badge: 'badge-muted' },
};

/** Problem rows fetched at a time. */
const PAGE = 200;

/** A dataset's facts per group and its validation report, with per-row exclusion. */
export function DatasetFacts({ projectId, datasetId, onChanged }: { projectId: string; datasetId: string; onChanged?: () => void }): JSX.Element {
  const [facts, setFacts] = useState<Facts | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [rowError, setRowError] = useState<UiError | null>(null);
  // The report is fetched in pages as the list scrolls: a large dataset's problems never all sit in the page.
  const [rows, setRows] = useState<(Facts['report'][number] | undefined)[]>([]);
  const asked = useRef(new Set<number>());

  const load = useCallback(async () => {
    try {
      const f = await call('datasets.show', { projectId, datasetId, limit: PAGE, offset: 0 });
      asked.current = new Set([0]);
      const first: (Facts['report'][number] | undefined)[] = new Array<Facts['report'][number] | undefined>(f.reportTotal);
      f.report.forEach((r, i) => (first[i] = r));
      setRows(first);
      setFacts(f);
      setError(null);
    } catch (err) {
      setError(asUiError(err));
    }
  }, [projectId, datasetId]);

  const onRange = useCallback(
    (from: number, to: number) => {
      for (let page = Math.floor(from / PAGE); page * PAGE < to; page += 1) {
        if (asked.current.has(page)) continue;
        asked.current.add(page);
        void call('datasets.problems', { projectId, datasetId, limit: PAGE, offset: page * PAGE })
          .then((p) =>
            setRows((old) => {
              const next = old.slice();
              p.rows.forEach((r, i) => (next[p.offset + i] = r));
              return next;
            }),
          )
          .catch((err: unknown) => {
            asked.current.delete(page);
            setRowError(asUiError(err));
          });
      }
    },
    [projectId, datasetId],
  );

  useEffect(() => {
    void load();
  }, [load]);

  const setExcluded = async (rows: number[], excluded: boolean) => {
    setRowError(null);
    try {
      await call('datasets.setExcluded', { projectId, datasetId, rows, excluded });
      await load();
      onChanged?.();
    } catch (err) {
      setRowError(asUiError(err));
    }
  };

  if (error) return <ErrorNote error={error} what="Could not read this dataset:" next="Try again; if the files moved, import the dataset again." />;
  if (!facts) return <p aria-live="polite">Loading dataset facts…</p>;
  const d = facts.dataset;
  const t = facts.totals;
  const warnCount = facts.reportKinds.warning;
  const leftOut = facts.reportKinds.leftOut;
  const excludeWarnings = async () => {
    try {
      const { rows: warned } = await call('datasets.warningRows', { projectId, datasetId });
      if (warned.length) await setExcluded(warned, true);
    } catch (err) {
      setRowError(asUiError(err));
    }
  };
  const headingId = `facts-${datasetId}`;
  return (
    <section className="facts" aria-labelledby={headingId}>
      <h3 id={headingId}>{d.name}</h3>
      <p className="muted">
        Can serve: {d.roles.map((r) => ROLE_PLAIN[r]).join('; ')}. Source: <code className="path">{d.sourcePath}</code>
      </p>
      <p>
        <strong>{t.usable}</strong> of {t.clips} recordings can be used ({t.speakers} speakers, <Num value={t.totalDurationS / 60} /> minutes in total). {t.excluded > 0 ? `${t.excluded} are left out` : 'None are left out'}
        {t.excludedByUser > 0 ? `, ${t.excludedByUser} of them by you` : ''}.
      </p>
      {facts.groups.length > 0 && (
        <table className="data">
          <caption>Usable recordings per group</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Group</th>
              <th scope="col">Recordings</th>
              <th scope="col">Speakers</th>
              <th scope="col">Mean length (s)</th>
            </tr>
          </thead>
          <tbody>
            {facts.groups.map((g) => (
              <tr key={`${g.label}=${g.value}`}>
                <td>{g.label}</td>
                <td>{g.value}</td>
                <td>{g.clips}</td>
                <td>{g.speakers}</td>
                <td>
                  <Num value={g.meanDurationS} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.labels.setsTotal > 0 && (
        <div className="label-record">
          <h4>Labels that differed only in case, spaces or invisible characters</h4>
          <ul aria-label={`Label decisions for ${d.name}`}>
            {d.labels.sets.map((set) => (
              <li key={`${set.column}:${set.spellings.map((x) => x.value).join('|')}`}>
                {set.kind === 'speaker' ? 'Speaker' : `“${set.column}”`} {spellingsText(set)}: {decisionText(set)}
              </li>
            ))}
            {d.labels.setsTotal > d.labels.sets.length && <li>…and {d.labels.setsTotal - d.labels.sets.length} more.</li>}
          </ul>
        </div>
      )}
      {d.labels.unifiedTotal > 0 && (
        <p className="hint">
          {d.labels.unifiedTotal} {d.labels.unifiedTotal === 1 ? 'label was' : 'labels were'} written in more than one way and made the same without asking (accents written as separate marks, spaces at the start or end).
        </p>
      )}
      {d.labels.skippedFiles && (
        <p className="hint">
          {d.labels.skippedFiles.count} {d.labels.skippedFiles.count === 1 ? 'file' : 'files'} in the folder {d.labels.skippedFiles.count === 1 ? 'is' : 'are'} not recordings and {d.labels.skippedFiles.count === 1 ? 'was' : 'were'} skipped ({d.labels.skippedFiles.examples.join(', ')}
          {d.labels.skippedFiles.count > d.labels.skippedFiles.examples.length ? ', …' : ''}): what operating systems leave in folders, and hidden files.
        </p>
      )}
      {facts.warnings.length > 0 && (
        <ul className="warnings" aria-label={`Import warnings for ${d.name}`}>
          {facts.warnings.slice(0, 10).map((w, i) => (
            <li key={i}>{w.message}</li>
          ))}
          {facts.warnings.length > 10 && <li>…and {facts.warnings.length - 10} more.</li>}
        </ul>
      )}
      {facts.reportTotal > 0 ? (
        <div className="validation">
          <h4>Problems found ({facts.reportTotal} recordings)</h4>
          <p className="hint">
            {leftOut > 0 ? `${leftOut} recording${leftOut === 1 ? ' has an error' : 's have errors'} (for example a missing or unreadable file) and ${leftOut === 1 ? 'is' : 'are'} left out automatically. ` : ''}
            Recordings with warnings are used unless you exclude them. Excluding changes which recordings the next audit uses.
          </p>
          {warnCount > 0 && (
            <button type="button" onClick={() => void excludeWarnings()}>
              Exclude all {warnCount} recordings with warnings
            </button>
          )}
          <WindowedList
            label={`Validation problems in ${d.name}`}
            items={rows}
            rowHeight={56}
            height={280}
            rowKey={(r, i) => r?.row ?? `pending-${i}`}
            onRange={onRange}
            renderRow={(r) =>
              r === undefined ? (
                <div className="problem-row muted">Loading…</div>
              ) : (
              <div className="problem-row">
                <span className={`badge ${KIND[rowKind(r)].badge}`}>{KIND[rowKind(r)].text}</span>
                <span className="problem-text" title={`Row ${r.row}: ${r.issues.map((i) => i.message).join("; ") || "excluded"}`}>
                  Row {r.row}: {r.issues.map((i) => i.message).join('; ') || 'excluded'}
                  <br />
                  <code className="path small">{r.path}</code>
                </span>
                {rowKind(r) !== 'left-out' && (
                  <button type="button" className="small" onClick={() => void setExcluded([r.row], !r.excludedByUser)} aria-label={`${r.excludedByUser ? 'Include' : 'Exclude'} row ${r.row}`}>
                    {r.excludedByUser ? 'Include' : 'Exclude'}
                  </button>
                )}
              </div>
              )
            }
          />
          <ErrorNote error={rowError} what="Could not change the exclusion:" next="Try again; the list above shows what is stored now." />
        </div>
      ) : (
        <p className="ok">No problems found in these recordings.</p>
      )}
    </section>
  );
}
