import { type FormEvent, type JSX, useCallback, useEffect, useState } from 'react';
import type { Project } from '../../../shared/api';
import { asUiError, call, type UiError } from '../api';
import type { Nav } from '../nav';
import { ErrorNote } from '../components/ErrorNote';
import { PathInput } from '../components/PathInput';
import type { ReportRecord } from '../../../shared/api/ui';
import { baseName, joinPath } from '../lib/paths';
import { ReportActions } from '../components/ReportActions';
import { CopyProjectDialog } from '../components/CopyProjectDialog';

/** The folder name a new project gets inside the chosen place (as the engine would name it). */
export function projectFolderName(name: string): string {
  const s = name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').toLowerCase();
  return s.slice(0, 60) || 'project';
}

/** "about 3 minutes" from seconds. */
export function durationText(seconds: number): string {
  if (seconds < 75) return 'about a minute';
  return `about ${Math.round(seconds / 60)} minutes`;
}

export function Home({ nav }: { nav: Nav }): JSX.Element {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [folder, setFolder] = useState('');
  const [openError, setOpenError] = useState<UiError | null>(null);
  /** A folder that turned out to be a copy of a project kept elsewhere, with the engine's words. */
  const [copyAsk, setCopyAsk] = useState<{ folder: string; message: string } | null>(null);
  const [copyBusy, setCopyBusy] = useState(false);
  const [demoError, setDemoError] = useState<UiError | null>(null);
  const [reports, setReports] = useState<(ReportRecord & { projectId: string; projectName: string })[]>([]);
  const [place, setPlace] = useState('');
  const [estimate, setEstimate] = useState<{ seconds: number; measured: boolean } | null>(null);
  useEffect(() => {
    call('demo.estimate', { quick: true }).then(setEstimate, () => setEstimate(null));
  }, []);

  const refresh = useCallback(async () => {
    try {
      const list = await call('projects.list', {});
      setProjects(list);
      setLoadError(null);
      // Recent reports, from each project's record in the engine (a project that cannot be read is skipped).
      const perProject = await Promise.all(
        list.map((p) => call('reports.list', { projectId: p.id }).then((rs) => rs.map((r) => ({ ...r, projectId: p.id, projectName: p.name })), () => [])),
      );
      setReports(perProject.flat().sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, 20));
    } catch (err) {
      setLoadError(asUiError(err));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const open = (p: Project) => nav.go({ name: 'project', project: p });

  /** A problem with one entry of the list (opening or removing it), shown under the list. */
  const [entryError, setEntryError] = useState<{ what: string; error: UiError } | null>(null);

  const openById = async (p: Project) => {
    setEntryError(null);
    try {
      open(await call('projects.open', { id: p.id }));
    } catch (err) {
      setEntryError({ what: `Could not open “${p.name}”:`, error: asUiError(err) });
      // Its folder may have gone since the list was shown: show it as missing.
      await refresh();
    }
  };

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setCreateError(null);
    try {
      const p = await call('projects.create', { name, ...(place ? { dir: joinPath(place, projectFolderName(name)) } : {}) });
      setName('');
      open(p);
    } catch (err) {
      // Keep what the auditor typed; say what to do.
      setCreateError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  const openFolder = async (e: FormEvent) => {
    e.preventDefault();
    setOpenError(null);
    try {
      open(await call('projects.open', { path: folder }));
    } catch (err) {
      const ui = asUiError(err);
      // The engine refuses a copied folder until asked to open it as a copy.
      if (ui.code === 'user' && ui.field === 'asCopy') setCopyAsk({ folder, message: ui.message });
      else setOpenError(ui);
    }
  };

  const openAsCopy = async () => {
    if (!copyAsk) return;
    setCopyBusy(true);
    try {
      const p = await call('projects.open', { path: copyAsk.folder, asCopy: true });
      setCopyAsk(null);
      open(p);
    } catch (err) {
      setCopyAsk(null);
      setOpenError(asUiError(err));
    } finally {
      setCopyBusy(false);
    }
  };

  /** Forget a project whose folder is gone (nothing on disk is touched). */
  const removeFromList = async (p: Project) => {
    setEntryError(null);
    try {
      await call('projects.delete', { id: p.id, deleteFiles: false });
      await refresh();
    } catch (err) {
      setEntryError({ what: `Could not remove “${p.name}” from the list:`, error: asUiError(err) });
    }
  };

  const tryDemo = async () => {
    setDemoError(null);
    setBusy(true);
    try {
      const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ').replace(':', '.');
      const p = await call('projects.create', { name: `Demo audit ${stamp}` });
      // One click: import, plan, lock and run as one job; the results open when it is done.
      const { jobId } = await call('demo.start', { projectId: p.id, quick: true });
      nav.go({ name: 'demo-run', project: p, jobId });
    } catch (err) {
      setDemoError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="home">
      <h1 tabIndex={-1}>Projects</h1>
      <section aria-labelledby="demo-heading" className="card accent-card">
        <h2 id="demo-heading">New here? Try the demo</h2>
        <p className="hint">
          One click runs a complete audit on a small set of synthetic recordings (speech synthesisers, not real people) with the two built-in models, and opens the results. Nothing leaves this computer.
          {estimate && (
            <>
              {' '}
              It takes {durationText(estimate.seconds)} on this computer
              {estimate.measured ? ', judging by the speed measured on earlier runs.' : ' (estimated from speeds measured while building Equivox; the first run measures this computer).'}
            </>
          )}
        </p>
        <button type="button" className="primary" onClick={() => void tryDemo()} disabled={busy}>
          Try the demo audit
        </button>
        <ErrorNote error={demoError} what="Could not start the demo:" next="Try again; if it keeps failing, create a project below and choose the demo recordings in its wizard." />
      </section>

      <section aria-labelledby="new-project-heading" className="card">
        <h2 id="new-project-heading">New project</h2>
        <p className="hint">A project keeps your recordings' descriptions, the models you test and every audit and report, in one folder on this computer.</p>
        <form onSubmit={create} className="row">
          <label htmlFor="project-name">Project name</label>
          <input
            id="project-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={createError?.field === 'name' || undefined}
            aria-describedby={createError ? 'create-error' : undefined}
            placeholder="e.g. Pilot audit"
            required
          />
          <button type="submit" className="primary" disabled={busy || name.trim() === ''}>
            {busy ? 'Creating…' : 'Create project'}
          </button>
        </form>
        <details className="open-folder">
          <summary>Where to keep it</summary>
          <div className="stack">
            <PathInput
              label="Place for the project folder"
              purpose="project-folder"
              value={place}
              onChange={setPlace}
              hint="Choose the folder in which the new project's folder is made. Without a choice it goes into Equivox's own projects folder."
            />
            {place && (
              <p className="hint">
                The project will be stored in <code className="path">{joinPath(place, projectFolderName(name || 'project name'))}</code>.{' '}
                <button type="button" className="link" onClick={() => setPlace('')}>
                  Use Equivox's projects folder instead
                </button>
              </p>
            )}
          </div>
        </details>
        <ErrorNote id="create-error" error={createError} what="Could not create the project:" next="Choose another name, or open the existing project from the list below." />
      </section>

      <section aria-labelledby="recent-heading" className="card">
        <h2 id="recent-heading">Recent projects</h2>
        <ErrorNote error={loadError} what="Could not load your projects:" next="Try again in a moment.">
          <button type="button" onClick={() => void refresh()}>
            Try again
          </button>
        </ErrorNote>
        {projects === null && !loadError && <p aria-live="polite">Loading…</p>}
        {projects?.length === 0 && <p>No projects yet. Create one above, or try the demo.</p>}
        {projects && projects.length > 0 && (
          <ul className="project-list" aria-label="Recent projects">
            {projects.map((p) =>
              p.missing ? (
                <li key={p.id} className="project-missing">
                  <span>{p.name}</span> <span className="badge badge-warn">{p.problem ? 'Cannot be opened' : 'Folder missing'}</span>
                  <br />
                  {p.problem ? (
                    <span className="muted">{p.problem}</span>
                  ) : (
                    <span className="muted">
                      It was in <code className="path">{p.path}</code>, which no longer holds it: the folder was moved or deleted. If you moved it, open it from its new place below.
                    </span>
                  )}
                  <br />
                  <button type="button" onClick={() => void removeFromList(p)} aria-label={`Remove from list: ${p.name}`}>
                    Remove from list
                  </button>
                </li>
              ) : (
                <li key={p.id}>
                  <button type="button" className="link" onClick={() => void openById(p)}>
                    {p.name}
                  </button>
                  <span className="muted"> · opened {new Date(p.openedAt).toLocaleString()}</span>
                </li>
              ),
            )}
          </ul>
        )}
        <ErrorNote error={entryError?.error ?? null} what={entryError?.what ?? ''} next="The list above shows where each project is now." />
        <details className="open-folder">
          <summary>Open a project from a folder</summary>
          <form onSubmit={openFolder} className="stack">
            <PathInput label="Project folder" purpose="project-folder" value={folder} onChange={setFolder} hint="The folder that holds project.sqlite, for example one copied from a colleague." invalid={openError !== null} />
            <div>
              <button type="submit" disabled={folder.trim() === ''}>
                Open project
              </button>
            </div>
          </form>
          <ErrorNote error={openError} what="Could not open that folder:" next="Press “Choose…” and pick the folder that contains the project.sqlite file." />
        </details>
        {copyAsk && <CopyProjectDialog message={copyAsk.message} busy={copyBusy} onOpenAsCopy={() => void openAsCopy()} onCancel={() => setCopyAsk(null)} />}
      </section>

      <section aria-labelledby="verify-heading" className="card">
        <h2 id="verify-heading">Check a report</h2>
        <p className="hint">Someone sent you an Equivox report, or you want to check one of yours? See whether it is unchanged since it was signed, and who signed it.</p>
        <button type="button" onClick={() => nav.go({ name: 'verify' })}>
          Verify a report…
        </button>
      </section>

      <section aria-labelledby="reports-heading" className="card">
        <h2 id="reports-heading">Recent reports</h2>
        {reports.length === 0 ? (
          <p>No reports yet. A signed PDF report is the last step of every audit.</p>
        ) : (
          <ul className="project-list" aria-label="Recent reports">
            {reports.map((r) => (
              <li key={`${r.projectId}:${r.id}`}>
                <strong>{baseName(r.path)}</strong> <span className="muted">· {r.projectName} · signed by {r.signer ?? 'unknown signer'} · {new Date(r.createdAt).toLocaleString()}</span>
                <br />
                <code className="path">{r.path}</code>
                <br />
                <ReportActions projectId={r.projectId} report={r} onVerify={(path) => nav.go({ name: 'verify', path })} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
