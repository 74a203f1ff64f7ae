import type { Project } from '../../shared/api';
import type { WizardEntry } from './screens/wizard/draft';

// Apart from App.tsx so that the screens it renders can navigate without importing App back.
export type Route =
  | { name: 'home' }
  | { name: 'project'; project: Project }
  | { name: 'wizard'; project: Project; entry: WizardEntry }
  | { name: 'demo-run'; project: Project; jobId: string }
  | { name: 'verify'; path?: string };

export interface Nav {
  go: (r: Route) => void;
}
