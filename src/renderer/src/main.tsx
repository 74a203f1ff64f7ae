import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createWebBridge } from './bridge-web';
import './styles.css';

// In Electron the preload has already defined window.equivox; in a browser we talk HTTP.
if (!window.equivox) window.equivox = createWebBridge();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
