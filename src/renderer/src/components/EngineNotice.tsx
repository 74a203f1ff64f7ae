import { type JSX, useEffect, useState } from 'react';
import { bridge } from '../api';

type Notice = { kind: 'restarted'; reason: string; resumed: number; at: Date } | { kind: 'stopped'; message: string };

/**
 * Says when the engine process died and the host started it again (or gave up), so an
 * auditor who sees a job pause knows why and that it picks up where it stopped.
 */
export function EngineNotice(): JSX.Element | null {
  const [notice, setNotice] = useState<Notice | null>(null);
  useEffect(
    () =>
      bridge().onEvent((e) => {
        if (e.type === 'engine.restarted') setNotice({ kind: 'restarted', reason: e.reason, resumed: e.resumedJobs.length, at: new Date() });
        else if (e.type === 'engine.stopped') setNotice({ kind: 'stopped', message: e.message });
      }),
    [],
  );
  if (!notice) return null;
  if (notice.kind === 'stopped') {
    return (
      <div className="error-note" role="alert" aria-label="The engine stopped">
        <p>
          <strong>The engine stopped.</strong> <span className="message">{notice.message}</span>
        </p>
      </div>
    );
  }
  return (
    <div className="warn-box" role="alert" aria-label="The engine was restarted">
      <p>
        <strong>The engine stopped unexpectedly ({notice.reason}) and was restarted at {notice.at.toLocaleTimeString()}.</strong>{' '}
        {notice.resumed === 0
          ? 'No job was running that could resume; nothing you saved was lost.'
          : `${notice.resumed === 1 ? 'The interrupted job goes' : `The ${notice.resumed} interrupted jobs go`} on from where ${notice.resumed === 1 ? 'it' : 'they'} stopped.`}
      </p>
      <button type="button" onClick={() => setNotice(null)}>
        Dismiss
      </button>
    </div>
  );
}
