import { Fragment, type JSX } from 'react';
import type { Nav, Route } from '../nav';

/** "Projects / … / current page": every screen below Home starts with it. */
export function Breadcrumb({ nav, via = [], current }: { nav: Nav; via?: { label: string; route: Route }[]; current: string }): JSX.Element {
  const trail = [{ label: 'Projects', route: { name: 'home' } as Route }, ...via];
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb">
      {trail.map((step) => (
        <Fragment key={step.label}>
          <button type="button" className="link" onClick={() => nav.go(step.route)}>
            {step.label}
          </button>{' '}
          /{' '}
        </Fragment>
      ))}
      <span aria-current="page">{current}</span>
    </nav>
  );
}
