import { execFileSync } from 'node:child_process';

// Build the renderer for the browser once; every spec's web host serves out/web.
export default function globalSetup(): void {
  execFileSync('npx', ['vite', 'build', '--config', 'vite.web.config.mts', '--logLevel', 'warn'], { stdio: 'inherit' });
}
