import { type JSX, useEffect, useState } from 'react';
import type { ReportRecord } from '../../../shared/api/ui';
import { asUiError, call, type UiError } from '../api';
import { hostKind } from '../lib/host';
import { baseName } from '../lib/paths';
import { ErrorNote } from './ErrorNote';

/** Save bytes as a download in the browser (the preview host cannot open files on this computer). */
function download(name: string, base64: string, mime: string): void {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * What can be done with a signed report: open it or show it in its folder (desktop app),
 * download it (browser preview), or check its signature on the Verify screen.
 */
export function ReportActions({
  projectId,
  report,
  onVerify,
  companions,
}: {
  projectId: string;
  report: Pick<ReportRecord, 'id' | 'path'>;
  onVerify?: (path: string) => void;
  /** The files written with the PDF (the signed statement, the data files), offered as downloads in the browser preview too. */
  companions?: { statementPath: string; exports: string[] };
}): JSX.Element {
  const [host, setHost] = useState<string | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    hostKind().then(setHost, () => setHost(null));
  }, []);
  const name = baseName(report.path);
  const act = async (action: 'open' | 'folder' | 'download', part?: string) => {
    setError(null);
    setNote(null);
    try {
      if (action === 'download') {
        const f = await call('reports.download', { projectId, reportId: report.id, ...(part ? { part } : {}) });
        download(f.name, f.base64, f.mime);
        setNote(`Downloaded ${f.name}.`);
      } else {
        await call('reports.open', { projectId, reportId: report.id, action });
        setNote(action === 'open' ? `Opened ${name}.` : `Showing ${name} in its folder.`);
      }
    } catch (err) {
      setError(asUiError(err));
    }
  };
  return (
    <span className="report-actions">
      {host === 'electron' ? (
        <>
          <button type="button" className="small" onClick={() => void act('open')}>
            Open<span className="visually-hidden"> {name}</span>
          </button>
          <button type="button" className="small" onClick={() => void act('folder')}>
            Show in folder<span className="visually-hidden"> {name}</span>
          </button>
        </>
      ) : (
        <>
          <button type="button" className="small" onClick={() => void act('download')}>
            Download<span className="visually-hidden"> {name}</span>
          </button>
          {companions && (
            <button type="button" className="small" onClick={() => void act('download', 'statement')}>
              Download the signed statement<span className="visually-hidden"> {baseName(companions.statementPath)}</span>
            </button>
          )}
        </>
      )}
      {onVerify && (
        <button type="button" className="small" onClick={() => onVerify(report.path)}>
          Verify<span className="visually-hidden"> {name}</span>
        </button>
      )}
      {note && (
        <span className="muted" role="status">
          {' '}
          {note}
        </span>
      )}
      {companions && host !== 'electron' && host !== null && companions.exports.length > 0 && (
        <details className="report-data-files">
          <summary>Download the report’s data files ({companions.exports.length})</summary>
          <ul aria-label="The report’s data files">
            {companions.exports.map((f) => (
              <li key={f}>
                <button type="button" className="small link" onClick={() => void act('download', `data/${baseName(f)}`)}>
                  {baseName(f)}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
      <ErrorNote error={error} what="That did not work:" next="The report is at the path shown; open it from your file manager." />
    </span>
  );
}
