import { type JSX } from 'react';
import type { Project } from '../../../shared/api';

export function ProjectScreen({ project, onClose }: { project: Project; onClose: () => void }): JSX.Element {
  return (
    <div>
      <nav aria-label="Breadcrumb">
        <button type="button" className="link" onClick={onClose}>
          Projects
        </button>{' '}
        / {project.name}
      </nav>
      <h1>{project.name}</h1>
      <p className="muted">Stored in {project.path}</p>
    </div>
  );
}
