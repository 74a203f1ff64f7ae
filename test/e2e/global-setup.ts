import { runCommand } from '../../scripts/spawn-command.mjs';

// Build the renderer for the browser once; every spec's web host serves out/web. (npx through
// scripts/spawn-command.mjs: on Windows it is npx.cmd, which needs cmd.exe.)
export default function globalSetup(): void {
  runCommand('npx', ['vite', 'build', '--config', 'vite.web.config.mts', '--logLevel', 'warn'], { stdio: 'inherit' });
}
