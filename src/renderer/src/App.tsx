import { type JSX, useEffect, useRef, useState } from 'react';
import type { Nav, Route } from './nav';
import { Home } from './screens/Home';
import { ProjectScreen } from './screens/ProjectScreen';
import { Wizard } from './screens/wizard/Wizard';
import { DemoRun } from './screens/DemoRun';
import { VerifyScreen } from './screens/VerifyScreen';
import { EngineNotice } from './components/EngineNotice';

export function App(): JSX.Element {
  const [route, setRoute] = useState<Route>({ name: 'home' });
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // Move focus to the new screen's heading so keyboard and screen-reader users follow.
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [route]);
  const nav: Nav = { go: setRoute };
  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <button type="button" className="brand" onClick={() => setRoute({ name: 'home' })} aria-label="Equivox home">
          Equivox
        </button>
        <span className="tagline">Audit speech models for social bias, on this computer</span>
      </header>
      <main id="main" className="app-main" data-ready="true" ref={mainRef}>
        <EngineNotice />
        {route.name === 'home' && <Home nav={nav} />}
        {route.name === 'project' && <ProjectScreen key={route.project.id} project={route.project} nav={nav} />}
        {route.name === 'wizard' && <Wizard key={`${route.project.id}-${route.entry.auditId ?? ''}`} project={route.project} entry={route.entry} nav={nav} />}
        {route.name === 'demo-run' && <DemoRun key={route.jobId} project={route.project} jobId={route.jobId} nav={nav} />}
        {route.name === 'verify' && <VerifyScreen key={route.path ?? ''} path={route.path} nav={nav} />}
      </main>
    </div>
  );
}
