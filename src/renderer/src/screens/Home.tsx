import { type FormEvent, type JSX, useCallback, useEffect, useState } from 'react';
import type { Project } from '../../../shared/api';
import { asUiError, call, type UiError } from '../api';

export function Home({ onOpen }: { onOpen: (p: Project) => void }): JSX.Element {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    try {
      setProjects(await call('projects.list', {}));
      setLoadError(null);
    } catch (err) {
      setLoadError(asUiError(err));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setCreateError(null);
    try {
      const p = await call('projects.create', { name });
      setName('');
      await refresh();
      onOpen(p);
    } catch (err) {
      // Keep what the auditor typed; say what to do.
      setCreateError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="home">
      <h1>Projects</h1>
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
        {createError && (
          <p id="create-error" role="alert" className="error">
            Could not create the project: {createError.message}
          </p>
        )}
      </section>

      <section aria-labelledby="recent-heading" className="card">
        <h2 id="recent-heading">Recent projects</h2>
        {loadError && (
          <p role="alert" className="error">
            Could not load your projects: {loadError.message} <button type="button" onClick={() => void refresh()}>Try again</button>
          </p>
        )}
        {projects === null && !loadError && <p aria-live="polite">Loading…</p>}
        {projects?.length === 0 && <p>No projects yet. Create one above.</p>}
        {projects && projects.length > 0 && (
          <ul className="project-list" aria-label="Recent projects">
            {projects.map((p) => (
              <li key={p.id}>
                <button type="button" className="link" onClick={() => onOpen(p)}>
                  {p.name}
                </button>
                <span className="muted"> · opened {new Date(p.openedAt).toLocaleString()}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
