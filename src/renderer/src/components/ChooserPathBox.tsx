import { type JSX, useEffect, useRef, useState } from 'react';
import type { BrowseEntry, BrowseListing } from '../../../shared/api/files';
import { call } from '../api';
import { baseName, dirName, joinPath } from '../lib/paths';

/** How many completions are offered at once (a folder can hold thousands of entries). */
const MAX_COMPLETIONS = 30;

/**
 * The in-app chooser's "type or paste a path" box. Completions come from files.browse,
 * so they exist only inside the folders the web host lets the chooser list (home and
 * temporary folders): a path elsewhere simply gets none, and going there is refused by
 * the same rules as the list. Enter goes to a folder, or chooses a file (granted with
 * files.grant like a click in the list).
 */
export function ChooserPathBox({
  id,
  start,
  fits,
  onFolder,
  onFile,
}: {
  id: string;
  /** The folder shown in the list, pre-filled so a name can be typed after it. */
  start: string | null;
  /** Whether an entry is offered (folders, and files of the purpose's kinds). */
  fits: (entry: BrowseEntry) => boolean;
  /** Show this folder in the list; false when it cannot be listed (not a folder, or not allowed). */
  onFolder: (path: string, quiet: boolean) => Promise<boolean>;
  onFile: (path: string) => void;
}): JSX.Element {
  const [text, setText] = useState(start ?? '');
  const [edited, setEdited] = useState(false);
  const [options, setOptions] = useState<string[]>([]);
  const listings = useRef(new Map<string, BrowseListing | null>());

  // Follow the list while the auditor has not typed anything of their own.
  useEffect(() => {
    if (!edited && start) setText(start.endsWith('/') || start.endsWith('\\') ? start : joinPath(start, ''));
  }, [start]);

  useEffect(() => {
    if (!edited) return;
    const endsInSep = /[\\/]$/.test(text);
    const folder = endsInSep ? text.replace(/[\\/]+$/, '') || text.slice(0, 1) : dirName(text);
    const prefix = endsInSep ? '' : baseName(text).toLowerCase();
    if (!folder) {
      setOptions([]);
      return;
    }
    let live = true;
    void (async () => {
      let l = listings.current.get(folder);
      if (l === undefined) {
        l = await call('files.browse', { path: folder }).catch(() => null);
        listings.current.set(folder, l);
      }
      if (!live) return;
      const hits = (l?.entries ?? []).filter((e) => fits(e) && (prefix.startsWith('.') || !e.name.startsWith('.')) && e.name.toLowerCase().startsWith(prefix));
      setOptions(hits.slice(0, MAX_COMPLETIONS).map((e) => (e.kind === 'folder' ? joinPath(joinPath(l!.path, e.name), '') : joinPath(l!.path, e.name))));
    })();
    return () => {
      live = false;
    };
  }, [text, edited]);

  // Not a <form>: the chooser can open inside another form (the Data step's), whose submit would also fire.
  const go = async () => {
    const path = text.trim();
    if (path === '') return;
    const folder = path.length > 1 ? path.replace(/[\\/]+$/, '') : path;
    if (await onFolder(folder, true)) {
      setEdited(false);
      return;
    }
    onFile(folder);
  };

  return (
    <div className="row chooser-path">
      <label htmlFor={`${id}-path`}>Type or paste a path</label>
      <input
        id={`${id}-path`}
        value={text}
        list={`${id}-completions`}
        onChange={(e) => {
          setEdited(true);
          setText(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            e.stopPropagation();
            void go();
          }
        }}
        spellCheck={false}
        autoComplete="off"
        aria-describedby={`${id}-path-hint`}
      />
      <datalist id={`${id}-completions`} data-testid="path-completions">
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      <button type="button" onClick={() => void go()}>
        Go<span className="visually-hidden"> to the path typed</span>
      </button>
      <span className="hint" id={`${id}-path-hint`}>
        Names inside your home and temporary folders are completed as you type; Enter opens a folder or chooses a file.
      </span>
    </div>
  );
}
