/** Stand-alone page for the dashboards (dashboards/preview.html), used by test/e2e/dashboards.spec.ts until the app mounts the preview route. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createWebBridge } from '../bridge-web';
import { DashboardPreview, matchDashboardPreview } from './preview-route';
import '../styles.css';

if (!window.equivox) window.equivox = createWebBridge();
const match = matchDashboardPreview(window.location.hash);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <main id="main" className="app-main" data-ready="true">
      {match ? <DashboardPreview {...match} /> : <p>Open #/dashboard-preview/&lt;projectId&gt;/&lt;auditId&gt;.</p>}
    </main>
  </StrictMode>,
);
