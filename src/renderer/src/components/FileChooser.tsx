import { type JSX, type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { BrowseEntry, BrowseListing, PickPurpose } from '../../../shared/api/files';
import { asUiError, call, type UiError } from '../api';
import { baseName, dirName, fileNameProblem, joinPath } from '../lib/paths';
import { ChooserPathBox } from './ChooserPathBox';
import { ErrorNote } from './ErrorNote';
import { WindowedList } from './WindowedList';
import { likelyFolders, rememberFolder } from '../lib/chooser-start';

/** What the chooser offers for each purpose: title, which files are listed, whether a folder is the answer. */
const PURPOSES: Record<PickPurpose, { title: string; extensions: string[] | null; what: string }> = {
  manifest: { title: 'Choose a spreadsheet (CSV or TSV)', extensions: ['.csv', '.tsv'], what: 'CSV and TSV files' },
  model: { title: 'Choose a model file (ONNX)', extensions: ['.onnx'], what: 'ONNX model files' },
  p12: { title: 'Choose a signing certificate (.p12 or .pfx)', extensions: ['.p12', '.pfx'], what: '.p12 and .pfx files' },
  pdf: { title: 'Choose a PDF report', extensions: ['.pdf'], what: 'PDF files' },
  'save-pdf': { title: 'Choose where to save the report', extensions: ['.pdf'], what: 'existing PDF files' },
  folder: { title: 'Choose a folder', extensions: null, what: 'folders' },
  'project-folder': { title: 'Choose a project folder', extensions: null, what: 'folders' },
  'job-folder': { title: 'Choose a folder for the cluster job', extensions: null, what: 'folders' },
};

/** Purposes whose answer is a folder (the one being shown), not a file in the list. */
const FOLDER_PURPOSES: ReadonlySet<PickPurpose> = new Set<PickPurpose>(['folder', 'project-folder', 'job-folder']);

/** The folder the chooser was last in, per purpose, for this page's lifetime. */
const lastFolder = new Map<PickPurpose, string>();

const ROW = 40;

function matches(entry: BrowseEntry, purpose: PickPurpose, showHidden: boolean): boolean {
  if (!showHidden && entry.name.startsWith('.')) return false;
  if (entry.kind === 'folder') return true;
  const ext = PURPOSES[purpose].extensions;
  return ext !== null && ext.some((e) => entry.name.toLowerCase().endsWith(e));
}

function sizeText(bytes: number | null): string {
  if (bytes === null) return '';
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A folder or file outline (the bundled fonts may lack emoji). */
function KindIcon({ kind }: { kind: BrowseEntry['kind'] }): JSX.Element {
  return (
    <svg className="kind-icon" width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" focusable="false">
      {kind === 'folder' ? (
        <path d="M1.5 4.5h5l1.5 1.5h8.5v8.5h-15z" fill="#f2c94c" stroke="#8a6d00" strokeWidth="1" />
      ) : (
        <path d="M3.5 1.5h7l4 4v11h-11z M10.5 1.5v4h4" fill="#ffffff" stroke="#4f5b67" strokeWidth="1" />
      )}
    </svg>
  );
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * The web host's in-app chooser: a modal dialog over files.browse (home and temporary
 * folders only) that grants the choice with files.grant and hands back the granted path.
 * Keyboard: arrow keys, Home/End and typing a name move in the list; Enter opens a
 * folder or chooses a file; Backspace goes up; Escape closes without choosing. A path can
 * also be typed or pasted, with completion inside the folders the host lets it list.
 */
export function FileChooser({ purpose, start, saveName, onDone }: { purpose: PickPurpose; start?: string; saveName?: string; onDone: (path: string | null) => void }): JSX.Element {
  const spec = PURPOSES[purpose];
  const folderMode = FOLDER_PURPOSES.has(purpose);
  const saveMode = purpose === 'save-pdf';
  const id = useId();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const typeahead = useRef<{ text: string; at: number }>({ text: '', at: 0 });
  const [listing, setListing] = useState<BrowseListing | null>(null);
  const [home, setHome] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const [showHidden, setShowHidden] = useState(false);
  const [active, setActive] = useState(0);
  const [name, setName] = useState(saveName ?? 'audit-report.pdf');
  const [nameError, setNameError] = useState<string | null>(null);
  const [granting, setGranting] = useState(false);
  /** A row to focus once it is rendered (the list only renders the rows in view). */
  const pendingFocus = useRef<number | null>(null);

  const entries = useMemo(() => {
    const shown = (listing?.entries ?? []).filter((e) => matches(e, purpose, showHidden));
    return [...shown.filter((e) => e.kind === 'folder'), ...shown.filter((e) => e.kind === 'file')];
  }, [listing, purpose, showHidden]);

  const browse = async (path: string | undefined, quiet = false): Promise<boolean> => {
    setLoading(true);
    setError(null);
    try {
      const l = await call('files.browse', path === undefined ? {} : { path });
      if (path === undefined) setHome((h) => h ?? l.path);
      setListing(l);
      setActive(0);
      // A new folder starts a new type-ahead: letters typed for the last one must not carry over.
      typeahead.current = { text: '', at: 0 };
      lastFolder.set(purpose, l.path);
      rememberFolder(l.path);
      pendingFocus.current = 0;
      return true;
    } catch (err) {
      if (!quiet) setError(asUiError(err));
      return false;
    } finally {
      setLoading(false);
    }
  };

  // Open as a modal (the rest of the page is inert), remember and restore focus.
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    // Where the user starts: the last folder for this purpose, the given folder, the last
    // folder used at all, the open project's folder, else home (whichever may be listed).
    void (async () => {
      try {
        const h = await call('files.browse', {});
        setHome(h.path);
        const candidates = [lastFolder.get(purpose), start, ...likelyFolders()].filter((p): p is string => !!p && p !== h.path);
        let opened = false;
        for (const from of candidates) {
          if (await browse(from, true)) {
            opened = true;
            break;
          }
        }
        if (!opened) {
          setListing(h);
          lastFolder.set(purpose, h.path);
          pendingFocus.current = 0;
        }
      } catch (err) {
        setError(asUiError(err));
      }
    })();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus();
    };
  }, []);

  // Move focus to the pending row once it is rendered.
  useEffect(() => {
    const index = pendingFocus.current;
    if (index === null || !listing) return;
    if (entries.length === 0) {
      pendingFocus.current = null;
      dialogRef.current?.querySelector<HTMLElement>('[data-chooser-start]')?.focus();
      return;
    }
    const scroller = listRef.current?.querySelector<HTMLElement>('.windowed');
    if (scroller) {
      const top = index * ROW;
      if (top < scroller.scrollTop) scroller.scrollTop = top;
      else if (top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + ROW - scroller.clientHeight;
    }
    let tries = 0;
    const tryFocus = () => {
      const row = listRef.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
      if (row) {
        row.focus();
        pendingFocus.current = null;
      } else if (tries++ < 60) requestAnimationFrame(tryFocus);
    };
    tryFocus();
  });

  const moveTo = (index: number) => {
    if (entries.length === 0) return;
    const i = Math.max(0, Math.min(entries.length - 1, index));
    pendingFocus.current = i;
    setActive(i);
  };

  const choose = async (path: string) => {
    setGranting(true);
    setError(null);
    try {
      const g = await call('files.grant', { path, purpose });
      onDone(saveMode ? joinPath(g.path, name.trim()) : g.path);
    } catch (err) {
      setError(asUiError(err));
    } finally {
      setGranting(false);
    }
  };

  const activate = (entry: BrowseEntry) => {
    if (!listing) return;
    const full = joinPath(listing.path, entry.name);
    if (entry.kind === 'folder') void browse(full);
    else if (saveMode) {
      setName(entry.name);
      setNameError(null);
      document.getElementById(`${id}-name`)?.focus();
    } else void choose(full);
  };

  const saveHere = () => {
    if (!listing) return;
    const problem = fileNameProblem(name.trim());
    setNameError(problem);
    if (problem) {
      document.getElementById(`${id}-name`)?.focus();
      return;
    }
    void choose(listing.path);
  };

  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) {
      if (e.altKey && e.key === 'ArrowUp' && listing?.parent) {
        e.preventDefault();
        void browse(listing.parent);
      }
      return;
    }
    const page = Math.max(1, Math.floor(320 / ROW) - 1);
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        moveTo(active + 1);
        return;
      case 'ArrowUp':
        e.preventDefault();
        moveTo(active - 1);
        return;
      case 'PageDown':
        e.preventDefault();
        moveTo(active + page);
        return;
      case 'PageUp':
        e.preventDefault();
        moveTo(active - page);
        return;
      case 'Home':
        e.preventDefault();
        moveTo(0);
        return;
      case 'End':
        e.preventDefault();
        moveTo(entries.length - 1);
        return;
      case 'Backspace':
        if (listing?.parent) {
          e.preventDefault();
          void browse(listing.parent);
        }
        return;
      default:
        break;
    }
    // Type-ahead: letters jump to the first entry whose name starts with what was typed.
    if (e.key.length === 1 && e.key !== ' ') {
      e.preventDefault();
      const now = Date.now();
      const t = typeahead.current;
      // Keep adding to the typed name while it still names something, even after a pause
      // (a slow typist, a busy computer); otherwise a pause starts a new name.
      const longer = t.text + e.key;
      const stillNames = entries.some((x) => x.name.toLowerCase().startsWith(longer.toLowerCase()));
      t.text = now - t.at <= 800 || (t.text !== '' && stillNames) ? longer : e.key;
      t.at = now;
      const want = t.text.toLowerCase();
      const from = t.text.length === 1 ? active + 1 : active;
      const order = [...entries.keys()].map((k) => (k + from) % entries.length);
      const hit = order.find((k) => entries[k]!.name.toLowerCase().startsWith(want));
      if (hit !== undefined) moveTo(hit);
    }
  };

  // Keep Tab inside the dialog (the page behind is inert; this also stops focus leaving to the browser).
  const onDialogKey = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== 'Tab') return;
    const items = [...(dialogRef.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => el.offsetParent !== null || el === document.activeElement);
    if (items.length === 0) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  const folders = entries.filter((e) => e.kind === 'folder').length;
  const files = entries.length - folders;
  const rootLabel = (r: string) => (r === home ? `Home folder` : `Temporary files`);

  return (
    <dialog
      ref={dialogRef}
      className="chooser"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-help`}
      onCancel={(e) => {
        e.preventDefault();
        onDone(null);
      }}
      onKeyDown={onDialogKey}
    >
      <h2 id={`${id}-title`}>{spec.title}</h2>
      <p className="hint" id={`${id}-help`}>
        Showing folders and {spec.what} in your home and temporary folders. Use the arrow keys or type a name to move in the list, Enter to open a folder
        {folderMode ? '' : saveMode ? '' : ' or choose a file'}, Backspace to go up, Escape to cancel.
      </p>
      <div className="row" role="group" aria-label="Start from">
        {(listing?.roots ?? []).map((r) => (
          <button key={r} type="button" onClick={() => void browse(r)} data-chooser-start aria-current={listing?.path === r ? 'location' : undefined}>
            {rootLabel(r)} <span className="muted">({r})</span>
          </button>
        ))}
        <button type="button" onClick={() => listing?.parent && void browse(listing.parent)} disabled={!listing?.parent}>
          ↑ Up<span className="visually-hidden"> to the parent folder</span>
        </button>
        <span className="check">
          <input type="checkbox" id={`${id}-hidden`} checked={showHidden} onChange={(e) => setShowHidden(e.target.checked)} />
          <label htmlFor={`${id}-hidden`}>Show hidden items</label>
        </span>
      </div>
      <p className="chooser-where">
        Looking in: <code className="path">{listing?.path ?? '…'}</code>
      </p>
      <ChooserPathBox
        id={id}
        start={listing?.path ?? null}
        fits={(e) => matches(e, purpose, true)}
        onFolder={(p, quiet) => browse(p, quiet)}
        onFile={(p) => {
          if (saveMode) {
            setName(baseName(p));
            setNameError(null);
            void browse(dirName(p));
          } else if (folderMode) void browse(p);
          else void choose(p);
        }}
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {loading ? 'Loading…' : listing ? `${listing.path}: ${folders} folders, ${files} ${spec.extensions ? 'matching files' : 'files'}` : ''}
      </p>
      <ErrorNote error={error} what="This did not work:" next="Choose another folder or file from the list, or press Cancel and try again later." />
      <div ref={listRef} onKeyDown={onListKey}>
        {listing && entries.length === 0 && (
          <p className="hint">
            This folder has no folders{spec.extensions ? ` or ${spec.what}` : ''}
            {listing.parent ? '. Press Up to go to the folder above, or' : '. Choose'} one of the places above{showHidden ? '' : ', or show hidden items'}.
          </p>
        )}
        {entries.length > 0 && (
          <WindowedList
            items={entries}
            rowHeight={ROW}
            height={320}
            label={`Contents of ${listing?.path ?? 'the folder'}`}
            rowKey={(e) => `${e.kind}:${e.name}`}
            keep={active}
            renderRow={(e, i) => (
              <button
                type="button"
                className={`chooser-row${i === active ? ' active' : ''}`}
                data-index={i}
                tabIndex={i === active ? 0 : -1}
                onFocus={() => setActive(i)}
                onClick={() => activate(e)}
              >
                <KindIcon kind={e.kind} />
                <span>{`${e.name}`}</span>
                <span className="visually-hidden">{e.kind === 'folder' ? ', folder' : ', file'}</span>
                {e.kind === 'file' && <span className="muted"> {sizeText(e.size)}</span>}
              </button>
            )}
          />
        )}
        {listing?.truncated && <p className="hint">This folder has more entries than can be shown; choose a folder further down.</p>}
      </div>
      {saveMode && (
        <div className="field">
          <label htmlFor={`${id}-name`}>File name</label>
          <input
            id={`${id}-name`}
            value={name}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                saveHere();
              }
            }}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={nameError !== null || undefined}
            aria-describedby={nameError ? `${id}-name-error` : undefined}
          />
          {nameError && (
            <p className="error" id={`${id}-name-error`} role="alert">
              {nameError}
            </p>
          )}
        </div>
      )}
      <div className="row chooser-actions">
        {saveMode && (
          <button type="button" className="primary" onClick={saveHere} disabled={!listing || granting}>
            Save in this folder
          </button>
        )}
        {folderMode && (
          <button type="button" className="primary" onClick={() => listing && void choose(listing.path)} disabled={!listing || granting}>
            Choose this folder
          </button>
        )}
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
