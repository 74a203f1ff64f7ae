import { type JSX, useState } from 'react';
import type { Project } from '../../shared/api';
import { Home } from './screens/Home';
import { ProjectScreen } from './screens/ProjectScreen';

export function App(): JSX.Element {
  const [project, setProject] = useState<Project | null>(null);
  return (
    <div className="app">
      <header className="app-header">
        <button type="button" className="brand" onClick={() => setProject(null)} aria-label="Equivox home">
          Equivox
        </button>
        <span className="tagline">Audit speech models for social bias, on this computer</span>
      </header>
      <main id="main" className="app-main" data-ready="true">
        {project ? <ProjectScreen project={project} onClose={() => setProject(null)} /> : <Home onOpen={setProject} />}
      </main>
    </div>
  );
}
